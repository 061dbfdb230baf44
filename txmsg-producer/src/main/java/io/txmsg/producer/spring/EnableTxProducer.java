package io.txmsg.producer.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Wires txmsg into a Spring application (spring-context + spring-tx, no Boot needed): a {@code
 * TxMessageTemplate} bean, the RocketMQ producer with its check-back dispatcher, every {@code
 * CheckbackResolver} bean, the delivery confirmer and the reconciler.
 *
 * <p>Needs beans of type {@link javax.sql.DataSource}, {@link
 * org.springframework.transaction.PlatformTransactionManager} (over that DataSource) and {@link
 * io.txmsg.producer.TxProducerSettings}. Optional beans: {@code Transport}, {@code
 * ProducerMetrics}, {@code PayloadSerializer}, {@code PayloadSanitizer}, {@code
 * ProducerInterceptor}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(TxProducerConfiguration.class)
public @interface EnableTxProducer {}
