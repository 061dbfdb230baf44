package io.txmsg.producer.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.txmsg.api.MeterNames;
import io.txmsg.micrometer.MeterCache;
import io.txmsg.producer.ProducerMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.BeanFactory;

/**
 * The producer's meters in Micrometer, with the names docs/architecture.md ("Metrics") fixes
 * ({@link MeterNames}). Tags are bounded (destination, event type, result, resolution, reason):
 * never an eventId or a business key. Meters are created once per tag combination and cached, so
 * recording does not allocate. The only producer package that imports Micrometer: without
 * micrometer-core on the classpath nothing here is loaded.
 */
public final class MicrometerProducerMetrics implements ProducerMetrics {
  private final MeterRegistry registry;
  private final Map<String, AtomicLong> pending = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> oldestSeconds = new ConcurrentHashMap<>();
  private final MeterCache meters;
  private final Timer checkbackLatency;
  private final Counter republished;
  private final Counter leaseExpired;
  private final Counter instanceTakeover;
  private final AtomicLong blocked = new AtomicLong();

  /** Metrics into {@code registry}. */
  public MicrometerProducerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.meters = new MeterCache(registry);
    this.checkbackLatency =
        Timer.builder(MeterNames.CHECKBACK_LATENCY)
            .description("Time to answer one broker check-back")
            .publishPercentileHistogram()
            .register(registry);
    this.republished =
        Counter.builder(MeterNames.RECONCILE_REPUBLISHED)
            .description("Journal rows the reconciler published again")
            .register(registry);
    this.leaseExpired =
        Counter.builder(MeterNames.LEASE_EXPIRED)
            .description("SENDING rows found with an expired lease and taken over")
            .register(registry);
    this.instanceTakeover =
        Counter.builder(MeterNames.INSTANCE_TAKEOVER)
            .description(
                "Committed rows of a hung producer instance (heartbeat stale) that this instance"
                    + " took over and republished")
            .baseUnit("rows")
            .register(registry);
    Gauge.builder(MeterNames.JOURNAL_BLOCKED, blocked, AtomicLong::get)
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
    meters
        .counter(
            MeterNames.SEND,
            "Half-message commits and republishes by result",
            "destination",
            destination,
            "event_type",
            eventType,
            "result",
            result)
        .increment();
  }

  @Override
  public void checkback(String resolution, String reason, long nanos) {
    meters
        .counter(
            MeterNames.CHECKBACK,
            "Check-back answers by resolution and reason",
            "resolution",
            resolution,
            "reason",
            reason)
        .increment();
    checkbackLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void givenUp(String outcome) {
    meters
        .counter(
            MeterNames.GIVEUP,
            "Half messages the broker stopped checking, by what the give-up drain did",
            "outcome",
            outcome)
        .increment();
  }

  @Override
  public void republished() {
    republished.increment();
  }

  @Override
  public void instanceTakeover(int rows) {
    instanceTakeover.increment(rows);
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
            MeterNames.JOURNAL_PENDING,
            destination,
            null,
            "Journal rows not yet confirmed delivered (PENDING, SENDING, RETRY)")
        .set(pendingRows);
    gauge(
            oldestSeconds,
            MeterNames.JOURNAL_OLDEST_AGE,
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
