package io.txmsg.rocketmq;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.store.JournalMapper;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.ops.PendingByDestination;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code txmsg.journal.pending} and {@code txmsg.journal.oldest.age} per destination. The values
 * come from ONE indexed query (status, next_retry_at) run at a fixed interval by {@link #refresh},
 * never per scrape: a scrape storm must not become a database storm.
 */
final class JournalGauges {
  private static final Logger log = LoggerFactory.getLogger(JournalGauges.class);

  private final StoreTransactions storeTx;
  private final MeterRegistry registry;
  private final Map<String, AtomicLong> pending = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> oldestSeconds = new ConcurrentHashMap<>();

  JournalGauges(StoreTransactions storeTx, MeterRegistry registry, List<String> destinations) {
    this.storeTx = storeTx;
    this.registry = registry;
    destinations.forEach(this::gauges); // visible as 0 before the first refresh
  }

  private void gauges(String destination) {
    pending.computeIfAbsent(
        destination,
        d -> {
          AtomicLong v = new AtomicLong();
          Gauge.builder("txmsg.journal.pending", v, AtomicLong::get)
              .description("Journal rows not yet confirmed delivered (PENDING, SENDING, RETRY)")
              .tag("destination", d)
              .register(registry);
          return v;
        });
    oldestSeconds.computeIfAbsent(
        destination,
        d -> {
          AtomicLong v = new AtomicLong();
          Gauge.builder("txmsg.journal.oldest.age", v, AtomicLong::get)
              .description("Age in seconds of the oldest unconfirmed journal row")
              .baseUnit("seconds")
              .tag("destination", d)
              .register(registry);
          return v;
        });
  }

  void refresh() {
    try {
      List<PendingByDestination> rows =
          storeTx.run(JournalMapper.class, JournalMapper::pendingByDestination);
      pending.values().forEach(v -> v.set(0));
      oldestSeconds.values().forEach(v -> v.set(0));
      for (PendingByDestination r : rows) {
        gauges(r.getDestination());
        pending.get(r.getDestination()).set(r.getPending());
        oldestSeconds.get(r.getDestination()).set(Math.max(0, r.getOldestAgeMillis() / 1000));
      }
    } catch (Exception e) {
      // Stale gauges are better than none; the next interval tries again.
      log.warn("journal gauges not refreshed: {}", e.toString());
    }
  }
}
