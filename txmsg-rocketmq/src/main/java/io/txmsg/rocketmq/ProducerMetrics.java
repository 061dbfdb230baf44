package io.txmsg.rocketmq;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The producer's meters, named as DESIGN.md section 5 fixes them. Tags are bounded (destination,
 * event type, result, resolution, reason): never an eventId or a business key. Meters are created
 * once per tag combination and cached, so recording does not allocate.
 */
public final class ProducerMetrics {
  /** Results of {@code txmsg.send}. */
  public static final String SENT = "sent";

  public static final String RETRY = "retry";
  public static final String DEAD = "dead";
  public static final String UNKNOWN = "unknown";

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Timer checkbackLatency;
  private final Counter republished;
  private final Counter leaseExpired;

  /** Metrics into {@code registry}; {@link #none()} records nothing. */
  public ProducerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.checkbackLatency =
        Timer.builder("txmsg.checkback.latency")
            .description("Time to answer one broker check-back")
            .publishPercentileHistogram()
            .register(registry);
    this.republished =
        Counter.builder("txmsg.reconcile.republished")
            .description("Journal rows the reconciler published again")
            .register(registry);
    this.leaseExpired =
        Counter.builder("txmsg.lease.expired")
            .description("SENDING rows found with an expired lease and taken over")
            .register(registry);
  }

  /** A registry with no backends: meters exist and record nothing. */
  public static ProducerMetrics none() {
    return new ProducerMetrics(new CompositeMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** One send outcome: first send (sent/unknown) or republish (sent/retry/dead). */
  public void send(String destination, String eventType, String result) {
    counters
        .computeIfAbsent(
            "send|" + destination + "|" + eventType + "|" + result,
            k ->
                Counter.builder("txmsg.send")
                    .description("Half-message commits and republishes by result")
                    .tag("destination", destination)
                    .tag("event_type", eventType)
                    .tag("result", result)
                    .register(registry))
        .increment();
  }

  /**
   * One check-back answer.
   *
   * @param reason found | tombstone | young | fenced | lock_timeout | error
   */
  public void checkback(String resolution, String reason, long nanos) {
    counters
        .computeIfAbsent(
            "checkback|" + resolution + "|" + reason,
            k ->
                Counter.builder("txmsg.checkback")
                    .description("Check-back answers by resolution and reason")
                    .tag("resolution", resolution)
                    .tag("reason", reason)
                    .register(registry))
        .increment();
    checkbackLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void republished() {
    republished.increment();
  }

  public void leaseExpired(int n) {
    if (n > 0) {
      leaseExpired.increment(n);
    }
  }
}
