package io.txmsg.examples;

import io.txmsg.examples.events.PaymentEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Waits until the system has settled, judged from the database: every journal row SENT, every
 * committed event (and every poison message) has its consume-log row in each group that subscribes
 * it, no command PENDING or SENDING, plus any extra condition of the current phase.
 */
final class Quiescence {
  private final JdbcTemplate jdbc;
  private final Supplier<List<String>> poisonIds;
  private final Map<String, Supplier<Long>> extra = new LinkedHashMap<>();

  Quiescence(JdbcTemplate jdbc, Supplier<List<String>> poisonIds) {
    this.jdbc = jdbc;
    this.poisonIds = poisonIds;
  }

  /** Adds a condition: settled only when {@code missing} returns 0. */
  void also(String what, Supplier<Long> missing) {
    extra.put(what, missing);
  }

  /** Waits up to {@code timeout}; returns what is still pending (empty = settled). */
  List<String> await(Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    List<String> pending = pending();
    while (!pending.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(500);
      pending = pending();
    }
    return pending;
  }

  /** One line per unsettled condition, with its count. */
  List<String> pending() {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put(
        "journal rows not SENT (PENDING/SENDING/RETRY/DEAD)",
        count("SELECT COUNT(*) FROM txmsg_journal WHERE status <> 'SENT'"));
    for (String group : List.of(PaymentEvents.POINTS, PaymentEvents.NOTIFICATION)) {
      counts.put(
          "PaymentSucceeded events without a consume-log row in " + group,
          count(
              "SELECT COUNT(*) FROM txmsg_journal j WHERE j.event_type = ? AND NOT EXISTS"
                  + " (SELECT 1 FROM txmsg_consume_log c WHERE c.consumer_group = ?"
                  + " AND c.event_id = j.event_id)",
              PaymentEvents.PAYMENT_SUCCEEDED,
              group));
    }
    counts.put(
        "events without a consume-log row in " + PaymentEvents.SEARCH_PROJECTION,
        count(
            "SELECT COUNT(*) FROM txmsg_journal j WHERE NOT EXISTS (SELECT 1 FROM"
                + " txmsg_consume_log c WHERE c.consumer_group = ? AND c.event_id = j.event_id)",
            PaymentEvents.SEARCH_PROJECTION));
    long poison = 0;
    for (String id : poisonIds.get()) {
      poison += 3 - count("SELECT COUNT(*) FROM txmsg_consume_log WHERE event_id = ?", id);
    }
    counts.put("poison messages not yet parked (group x message)", poison);
    counts.put(
        "commands PENDING/SENDING",
        count("SELECT COUNT(*) FROM txmsg_command WHERE status IN ('PENDING', 'SENDING')"));
    extra.forEach((what, missing) -> counts.put(what, missing.get()));
    List<String> out = new ArrayList<>();
    counts.forEach(
        (what, n) -> {
          if (n != 0) {
            out.add(what + ": " + n);
          }
        });
    return out;
  }

  private long count(String sql, Object... args) {
    Long n = jdbc.queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }
}
