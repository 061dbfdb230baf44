package io.txmsg.cdc.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.txmsg.api.PublishException;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelayListener;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Micrometer meters of one store's CDC relay, tagged {@code store}. Counters come from the relay's
 * events (pass this as the builder's {@link CdcRelay.Builder#listener listener}); the lag gauges
 * are read from the database every {@code interval} by {@link #bind} ({@link CdcRelay#lag()}: one
 * indexed journal query, and on PostgreSQL one on pg_replication_slots).
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><td>{@value #LAG_RECORDS}</td><td>gauge: CDC rows of the store not SENT yet</td></tr>
 *   <tr><td>{@value #LAG_SECONDS}</td><td>gauge: age of the oldest of them (database clock)</td></tr>
 *   <tr><td>{@value #SLOT_LAG_BYTES}</td><td>gauge, PostgreSQL: WAL the server retains for the
 *       relay's slot (alert on it: an idle slot keeps WAL until the disk is full); -1 when there
 *       is no slot or no PostgreSQL</td></tr>
 *   <tr><td>{@value #RELAYING}</td><td>gauge: 1 while this instance holds the lease and reads the
 *       log, else 0</td></tr>
 *   <tr><td>{@value #RELAYED}</td><td>counter: rows sent with SEND_OK</td></tr>
 *   <tr><td>{@value #EVENTS}</td><td>counter, tag {@code event}: send_failed, dead, held_back,
 *       cannot_resume, engine_failed, lease_acquired, lease_lost</td></tr>
 * </table>
 *
 * Listener methods only count; they never block or throw.
 */
public final class CdcRelayMetrics implements CdcRelayListener, AutoCloseable {
  public static final String LAG_RECORDS = "txmsg.cdc.relay.lag.records";
  public static final String LAG_SECONDS = "txmsg.cdc.relay.lag.seconds";
  public static final String SLOT_LAG_BYTES = "txmsg.cdc.slot.lag.bytes";
  public static final String RELAYING = "txmsg.cdc.relay.relaying";
  public static final String RELAYED = "txmsg.cdc.relayed";
  public static final String EVENTS = "txmsg.cdc.relay.events";

  private static final Logger log = LoggerFactory.getLogger(CdcRelayMetrics.class);

  private final MeterRegistry registry;
  private final Tags tags;
  private final Counter relayed;
  private final AtomicLong lagRecords = new AtomicLong();
  private final AtomicLong lagMillis = new AtomicLong();
  private final AtomicLong slotBytes = new AtomicLong(-1);
  private final AtomicReference<CdcRelay> relay = new AtomicReference<>();
  private ScheduledExecutorService scheduler;

  /** Meters for {@code storeId} in {@code registry}; the gauges read 0 (-1) until {@link #bind}. */
  public CdcRelayMetrics(MeterRegistry registry, String storeId) {
    this.registry = registry;
    this.tags = Tags.of("store", storeId);
    this.relayed = Counter.builder(RELAYED).tags(tags).register(registry);
    Gauge.builder(LAG_RECORDS, lagRecords, AtomicLong::get).tags(tags).register(registry);
    Gauge.builder(LAG_SECONDS, lagMillis, m -> m.get() / 1000.0)
        .tags(tags)
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(SLOT_LAG_BYTES, slotBytes, AtomicLong::get)
        .tags(tags)
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder(
            RELAYING,
            relay,
            r -> r.get() != null && r.get().state() == CdcRelay.State.RELAYING ? 1 : 0)
        .tags(tags)
        .register(registry);
  }

  /**
   * Reads the relay's lag now and then every {@code interval} on a daemon thread of its own, until
   * {@link #close()}. A failed read keeps the last values (and is logged at debug).
   */
  public synchronized CdcRelayMetrics bind(CdcRelay cdcRelay, Duration interval) {
    if (scheduler != null) {
      throw new IllegalStateException("already bound to a relay");
    }
    relay.set(cdcRelay);
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "txmsg-cdc-metrics-" + cdcRelay.storeId());
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Reads the lag gauges once (what the schedule runs). */
  public void refresh() {
    CdcRelay r = relay.get();
    if (r == null) {
      return;
    }
    try {
      CdcRelay.Lag lag = r.lag();
      lagRecords.set(lag.records());
      lagMillis.set(lag.oldest().toMillis());
      slotBytes.set(lag.slotRetainedBytes() == null ? -1 : lag.slotRetainedBytes());
    } catch (Exception e) {
      log.debug("cdc lag not read storeId={}: {}", r.storeId(), e.toString());
    }
  }

  private void count(String event) {
    Counter.builder(EVENTS).tags(tags).tag("event", event).register(registry).increment();
  }

  @Override
  public void leaseAcquired(String storeId, long generation) {
    count("lease_acquired");
  }

  @Override
  public void leaseLost(String storeId, long generation) {
    count("lease_lost");
  }

  @Override
  public void cannotResume(String storeId, String reason) {
    count("cannot_resume");
  }

  @Override
  public void relayed(String storeId, int count) {
    relayed.increment(count);
  }

  @Override
  public void sendFailed(String eventId, PublishException error, int attempt, long retryInMillis) {
    count("send_failed");
  }

  @Override
  public void dead(String eventId, PublishException error) {
    count("dead");
  }

  @Override
  public void heldBack(String eventId) {
    count("held_back");
  }

  @Override
  public void engineFailed(String storeId, Throwable error, long retryInMillis) {
    count("engine_failed");
  }

  /** Stops the lag refresh (the meters stay registered with their last values). */
  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }
}
