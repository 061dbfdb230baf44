package io.txmsg.transport;

/**
 * Called by a transport for each message delivered to a consumer group or read from its dead-letter
 * queue, on one of the subscription's consumption threads. An exception thrown here is treated as
 * {@link Verdict#RETRY}.
 */
@FunctionalInterface
public interface DeliveryHandler {
  Verdict onMessage(InboundMessage message);
}
