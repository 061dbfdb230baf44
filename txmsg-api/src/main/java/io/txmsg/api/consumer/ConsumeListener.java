package io.txmsg.api.consumer;

/** Told the outcome of every delivery and replay; for metrics, demos and tests. Must not block. */
@FunctionalInterface
public interface ConsumeListener {
  void onOutcome(String consumerGroup, String eventType, String eventId, ConsumeOutcome outcome);
}
