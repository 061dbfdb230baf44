package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeContext;

/** The programmatic form of a {@code @TxMessageHandler} method. */
@FunctionalInterface
public interface EventHandler<T> {
  void handle(T event, ConsumeContext context) throws Exception;
}
