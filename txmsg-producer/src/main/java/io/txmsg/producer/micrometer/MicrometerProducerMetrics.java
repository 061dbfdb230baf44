package io.txmsg.producer.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.txmsg.producer.ProducerMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.BeanFactory;

/**
 * The producer's meters in Micrometer, with the names docs/architecture.md ("Metrics") fixes. Tags
 * are bounded (destination, event type, result, resolution, reason): never an eventId or a business
 * key. Meters are created once per tag combination and cached, so recording does not allocate. The
 * only producer package that imports Micrometer: without micrometer-core on the classpath nothing
 * here is loaded.
 */
public final class MicrometerProducerMetrics implements ProducerMetrics {
  private final MeterRegistry registry;
  private final Map<String, AtomicLong> pending = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> oldestSeconds = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Timer checkbackLatency;
  private final Counter republished;
  private final Counter leaseExpired;
  private final AtomicLong blocked = new AtomicLong();

  /** Metrics into {@code registry}. */
  public MicrometerProducerMetrics(MeterRegistry registry) {
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
    Gauge.builder("txmsg.journal.blocked", blocked, AtomicLong::get)
        .description(
            "Unsent FIFO rows held back by a DEAD lower version of their aggregate (alert on > 0)")
        .baseUnit("rows")
        .register(registry);
  }

  @Override
  public void journalBlocked(long rows) {
    blocked.set(rows);
  }

  /**
   * The metrics of the application context's {@link MeterRegistry} bean, or {@link
   * ProducerMetrics#NONE} when it has none. Called by the Spring wiring only when Micrometer is on
   * the classpath.
   */
  public static ProducerMetrics fromBeanFactory(BeanFactory beanFactory) {
    MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfAvailable();
    return registry == null ? ProducerMetrics.NONE : new MicrometerProducerMetrics(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  @Override
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

  @Override
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

  @Override
  public void givenUp(String outcome) {
    counters
        .computeIfAbsent(
            "givenUp|" + outcome,
            k ->
                Counter.builder("txmsg.giveup")
                    .description(
                        "Half messages the broker stopped checking, by what the give-up drain did")
                    .tag("outcome", outcome)
                    .register(registry))
        .increment();
  }

  @Override
  public void republished() {
    republished.increment();
  }

  @Override
  public void leaseExpired(int n) {
    if (n > 0) {
      leaseExpired.increment(n);
    }
  }

  @Override
  public boolean wantsJournalBacklog() {
    return true;
  }

  @Override
  public void journalBacklog(String destination, long pendingRows, long oldestAgeSeconds) {
    gauge(
            pending,
            "txmsg.journal.pending",
            destination,
            null,
            "Journal rows not yet confirmed delivered (PENDING, SENDING, RETRY)")
        .set(pendingRows);
    gauge(
            oldestSeconds,
            "txmsg.journal.oldest.age",
            destination,
            "seconds",
            "Age in seconds of the oldest unconfirmed journal row")
        .set(oldestAgeSeconds);
  }

  private AtomicLong gauge(
      Map<String, AtomicLong> values, String name, String destination, String unit, String text) {
    return values.computeIfAbsent(
        destination,
        d -> {
          AtomicLong v = new AtomicLong();
          Gauge.Builder<AtomicLong> b =
              Gauge.builder(name, v, AtomicLong::get).description(text).tag("destination", d);
          if (unit != null) {
            b.baseUnit(unit);
          }
          b.register(registry);
          return v;
        });
  }
}
