package io.txmsg.transport;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A consumer group's subscription.
 *
 * @param group the consumer group (the same on every instance)
 * @param tagsByTopic topic → tag filter expression ({@code *} for all)
 * @param threads consumption threads
 * @param lease leased delivery (see {@link Lease}), or null for the transport's default consumer
 */
public record SubscriptionSpec(
    String group, Map<String, String> tagsByTopic, int threads, Lease lease) {
  public SubscriptionSpec {
    Objects.requireNonNull(group, "group");
    tagsByTopic = Map.copyOf(tagsByTopic);
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
  }

  /** A subscription with the transport's default consumer (no lease). */
  public SubscriptionSpec(String group, Map<String, String> tagsByTopic, int threads) {
    this(group, tagsByTopic, threads, null);
  }

  /**
   * Leased delivery: each received message stays invisible to other consumers of the group for
   * {@code duration}, renewed by this client while it is held (queued or in its handler). When the
   * client dies, its messages come back after at most {@code duration}, whatever the broker's
   * channel expiry. A RETRY verdict hides the message for the backoff of its delivery attempt
   * ({@code retryInitial} doubled per attempt, at most {@code retryMax}); the broker still moves it
   * to the group's dead-letter queue after its retry limit. Transports whose consumer already
   * recovers quickly from a dead client (remoting rebalances at once) ignore it.
   *
   * @param duration the lease; at least {@link #MIN_DURATION} (the gRPC proxy refuses shorter)
   * @param retryInitial delay before the second delivery attempt
   * @param retryMax largest delay between attempts
   */
  public record Lease(Duration duration, Duration retryInitial, Duration retryMax) {
    /**
     * The shortest lease the RocketMQ 5 proxy accepts on a receive (minInvisibleTimeMillsForRecv).
     */
    public static final Duration MIN_DURATION = Duration.ofSeconds(10);

    public Lease {
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(retryInitial, "retryInitial");
      Objects.requireNonNull(retryMax, "retryMax");
      if (duration.compareTo(MIN_DURATION) < 0) {
        throw new IllegalArgumentException(
            "lease duration must be at least " + MIN_DURATION + ", was " + duration);
      }
      if (retryInitial.isNegative() || retryInitial.isZero()) {
        throw new IllegalArgumentException("retryInitial must be positive, was " + retryInitial);
      }
      if (retryMax.compareTo(retryInitial) < 0) {
        throw new IllegalArgumentException(
            "retryMax must be at least retryInitial (" + retryInitial + "), was " + retryMax);
      }
    }

    /** The delay after a failed delivery attempt {@code attempt} (1-based). */
    public Duration retryDelay(int attempt) {
      return Duration.ofMillis(
          Backoff.exponential(retryInitial, retryMax).withoutJitter().millis(attempt));
    }
  }
}
