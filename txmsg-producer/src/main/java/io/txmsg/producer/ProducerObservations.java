package io.txmsg.producer;

import java.util.Map;

/**
 * Where the producer reports its observations (docs/architecture.md, "Tracing"); {@link #NONE} by
 * default, which adds nothing to any header. The Micrometer implementation ({@link
 * io.txmsg.producer.micrometer.MicrometerProducerObservations}) opens {@code txmsg.execute}, {@code
 * txmsg.publish} and {@code txmsg.checkback} on an {@code ObservationRegistry};
 * micrometer-observation is an optional dependency, needed only for it. Implementations must be
 * thread-safe and must not throw.
 */
public interface ProducerObservations {
  /** Observes nothing and injects nothing. */
  ProducerObservations NONE = new ProducerObservations() {};

  /**
   * Starts {@code txmsg.execute} around one {@code execute} and puts the trace context of its span
   * ({@code traceparent}, {@code tracestate}, baggage) into {@code traceHeaders}, which the caller
   * stores with the journal row so every (re)publish carries the same parent.
   *
   * @param mode half_message | outbox
   */
  default Observed execute(
      String topic,
      String eventType,
      String eventId,
      String mode,
      Map<String, String> traceHeaders) {
    return Observed.NONE;
  }

  /**
   * Starts {@code txmsg.publish} around one send of a committed journal row; its parent is the span
   * whose context the row stores in {@code storedHeaders}.
   *
   * @param kind send (the immediate send after commit) | republish (the reconciler or the give-up
   *     drain)
   */
  default Observed publish(
      String topic,
      String eventType,
      String eventId,
      String kind,
      Map<String, String> storedHeaders) {
    return Observed.NONE;
  }

  /**
   * Starts {@code txmsg.checkback} around one check-back answer; its parent is the span whose
   * context the half message carries in {@code headers}.
   */
  default Observed checkback(
      String topic, String eventType, String eventId, Map<String, String> headers) {
    return Observed.NONE;
  }

  /**
   * One started observation of the producer; the contract (outcome tag, error, close that never
   * throws) is {@link io.txmsg.api.Observed}'s, shared with the consumer.
   */
  interface Observed extends io.txmsg.api.Observed {
    /** Nothing to stop. */
    Observed NONE = new Observed() {};
  }
}
