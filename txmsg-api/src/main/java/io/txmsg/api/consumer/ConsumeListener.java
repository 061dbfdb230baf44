package io.txmsg.api.consumer;

/**
 * Told the outcome of every delivery and replay; for metrics, demos and tests. Must not block, and
 * should not throw (an exception is logged and ignored where the runtime calls it).
 */
@FunctionalInterface
public interface ConsumeListener {
  void onOutcome(String consumerGroup, String eventType, String eventId, ConsumeOutcome outcome);

  /**
   * Called when an event was parked, with the reason and the dead letter's key, right after the
   * parked rows committed and before {@link #onOutcome} is told {@link ConsumeOutcome#PARKED}: on
   * delivery (any park reason), by the %DLQ% drain (BROKER_DLQ or a malformed reason), and when a
   * replay failed and left the dead letter parked again (its original reason, the replay's error,
   * delivery attempt 0; {@code onOutcome} is not called then). Not called when a parking attempt
   * found the event already in the consume log (DUPLICATE or CONFLICT) or could not record it
   * (RETRY). The default does nothing.
   */
  default void onParked(ParkedEvent parked) {}
}
