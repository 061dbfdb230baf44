package io.txmsg.producer.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * The earlier name of {@link EnableTxProducer}; imports the same configuration.
 *
 * @deprecated use {@link EnableTxProducer} (the producer runtime is {@code TxProducer}, beside
 *     {@code TxConsumers} / {@code @EnableTxConsumers})
 */
@Deprecated
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(TxProducerConfiguration.class)
public @interface EnableTxMessaging {}
