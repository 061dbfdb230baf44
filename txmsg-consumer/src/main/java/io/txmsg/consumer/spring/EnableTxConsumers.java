package io.txmsg.consumer.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Wires the txmsg consumer into a Spring application (spring-context + spring-tx, no Boot needed):
 * every bean method annotated {@link io.txmsg.api.consumer.TxMessageHandler} becomes a handler, its
 * writes (MyBatis mappers, JdbcTemplate) joining the transaction that claims the event.
 *
 * <p>Needs beans of type {@link javax.sql.DataSource}, {@link
 * org.springframework.transaction.PlatformTransactionManager} (over that DataSource) and {@link
 * io.txmsg.consumer.TxConsumerSettings}. Optional beans: {@code PayloadSerializer}, {@link
 * CommandExecutorBinding}s, {@code ConsumeListener}s, a {@code ConsumerInterceptor}. Consumption
 * starts when the context has refreshed (all handler beans exist) and stops when it closes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(TxConsumerConfiguration.class)
public @interface EnableTxConsumers {}
