package io.txmsg.consumer;

import java.util.Map;

/**
 * Where the consumer reports its observations (docs/architecture.md, "Tracing"); {@link #NONE} by
 * default. The Micrometer implementation ({@link
 * io.txmsg.consumer.micrometer.MicrometerConsumerObservations}) opens {@code txmsg.consume} on an
 * {@code ObservationRegistry}, as a child of the trace context the event carries;
 * micrometer-observation is an optional dependency, needed only for it. Implementations must be
 * thread-safe and must not throw.
 */
public interface ConsumerObservations {
  /** Observes nothing. */
  ConsumerObservations NONE = new ConsumerObservations() {};

  /**
   * Starts {@code txmsg.consume} around one delivery or replay of an event to its handler, in scope
   * while the handler runs; its parent is the span whose context {@code headers} (the event's
   * application headers, {@code ConsumeContext.headers()}) carry.
   */
  default Observed consume(
      String group,
      String topic,
      String eventType,
      String eventId,
      boolean replay,
      Map<String, String> headers) {
    return Observed.NONE;
  }

  /**
   * One started observation of the consumer; the contract (outcome tag, error, close that never
   * throws) is {@link io.txmsg.api.Observed}'s, shared with the producer.
   */
  interface Observed extends io.txmsg.api.Observed {
    /** Nothing to stop. */
    Observed NONE = new Observed() {};
  }
}
