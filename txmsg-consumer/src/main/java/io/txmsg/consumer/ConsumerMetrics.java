package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeOutcome;
import java.time.Instant;

/**
 * Where the consumer runtime reports what it does; {@link #NONE} by default. The Micrometer
 * implementation ({@link io.txmsg.consumer.micrometer.MicrometerConsumerMetrics}) records the
 * meters listed in docs/architecture.md ("Metrics"); micrometer-core is an optional dependency,
 * needed only for it. Implementations must be thread-safe and must not throw.
 */
public interface ConsumerMetrics {
  /** Records nothing. */
  ConsumerMetrics NONE = new ConsumerMetrics() {};

  /**
   * One delivery processed.
   *
   * @param eventType null when the message had no readable envelope
   * @param nanos time spent processing it
   * @param originTime when the event was committed (null when unknown)
   */
  default void consumed(
      String group, String eventType, ConsumeOutcome outcome, long nanos, Instant originTime) {}

  /** A delivery was held back by a version gap. */
  default void gap(String group) {}

  /** One replayed dead letter. */
  default void replay(ReplayResult.Status status) {}
}
