package io.txmsg.examples;

import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.notification.FakeSmsGateway;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The invariants of the demo, each a query over the application's tables against the txmsg tables
 * (plus the SMS gateway's own counts for "sent once per key").
 */
final class Invariants {
  private final JdbcTemplate jdbc;
  private final FakeSmsGateway gateway;

  Invariants(JdbcTemplate jdbc, FakeSmsGateway gateway) {
    this.jdbc = jdbc;
    this.gateway = gateway;
  }

  void check(ReconciliationReport r, DemoRun run) {
    long missing =
        count(
            "SELECT COUNT(*) FROM payment p WHERE NOT EXISTS (SELECT 1 FROM points_ledger l"
                + " WHERE l.order_id = p.order_id) OR NOT EXISTS (SELECT 1 FROM order_projection o"
                + " WHERE o.order_id = p.order_id) OR NOT EXISTS (SELECT 1 FROM sms_notification s"
                + " WHERE s.order_id = p.order_id)");
    r.check(
        "no committed payment without its points credit, SMS and projection",
        missing == 0,
        missing + " payments lack one");
    long orphans =
        count(
            "SELECT COUNT(*) FROM points_ledger l WHERE NOT EXISTS (SELECT 1 FROM payment p"
                + " WHERE p.order_id = l.order_id AND p.event_id = l.event_id)");
    r.check("no points without a committed payment", orphans == 0, orphans + " orphan credits");
    long twice =
        count(
                "SELECT COUNT(*) FROM (SELECT event_id FROM points_ledger GROUP BY event_id HAVING COUNT(*) > 1) x")
            + count(
                "SELECT COUNT(*) FROM (SELECT event_id FROM sms_notification GROUP BY event_id HAVING COUNT(*) > 1) x")
            + count(
                "SELECT COUNT(*) FROM (SELECT event_id FROM order_projection_history GROUP BY event_id HAVING COUNT(*) > 1) x");
    long mismatch =
        Math.abs(applied(PaymentEvents.POINTS) - count("SELECT COUNT(*) FROM points_ledger"))
            + Math.abs(
                applied(PaymentEvents.NOTIFICATION)
                    - count("SELECT COUNT(*) FROM sms_notification"))
            + Math.abs(
                applied(PaymentEvents.SEARCH_PROJECTION)
                    - count("SELECT COUNT(*) FROM order_projection_history"));
    r.check(
        "each event applied at most once per group",
        twice == 0 && mismatch == 0,
        twice
            + " events applied twice; "
            + mismatch
            + " differences between SUCCESS rows and handler rows");
    long older =
        count(
                "SELECT COUNT(*) FROM order_projection o JOIN txmsg_aggregate_version v"
                    + " ON v.consumer_group = ? AND v.aggregate_type = ? AND v.aggregate_id = o.order_id"
                    + " WHERE o.version <> v.last_applied_version",
                PaymentEvents.SEARCH_PROJECTION,
                PaymentEvents.AGGREGATE)
            + count(
                "SELECT COUNT(*) FROM order_projection o WHERE o.version < (SELECT"
                    + " MAX(j.aggregate_version) FROM txmsg_journal j WHERE j.aggregate_type = ?"
                    + " AND j.aggregate_id = o.order_id)",
                PaymentEvents.AGGREGATE);
    r.check(
        "no projection older than its latest applied version",
        older == 0,
        older
            + " projections behind (guard row or latest committed version); stale skipped: "
            + count("SELECT COUNT(*) FROM txmsg_consume_log WHERE status = 'SKIPPED_STALE'"));
    Map<String, Integer> sends = gateway.sendsPerKey();
    Set<String> keys =
        new HashSet<>(
            jdbc.queryForList("SELECT idempotency_key FROM sms_notification", String.class));
    int maxSends = sends.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    long notDone = count("SELECT COUNT(*) FROM txmsg_command WHERE status <> 'DONE'");
    r.check(
        "SMS sent once per idempotency key",
        keys.equals(sends.keySet()) && maxSends <= 1 && notDone == 0,
        sends.size()
            + " keys sent for "
            + keys.size()
            + " notifications, max sends per key "
            + maxSends
            + ", "
            + gateway.dedupHits()
            + " repeated calls absorbed by the gateway, "
            + notDone
            + " commands not DONE");
    long undelivered =
        count("SELECT COUNT(*) FROM txmsg_journal WHERE status <> 'SENT'")
            + count(
                "SELECT COUNT(*) FROM txmsg_attempt a JOIN payment p ON p.attempt_id = a.attempt_id"
                    + " WHERE a.state <> 'COMMITTED'");
    r.check(
        "every journal row confirmed SENT; no payment from a rolled-back or fenced attempt",
        undelivered == 0,
        undelivered + " rows");
    List<String> stillParked = new ArrayList<>();
    List<String> unexpected = new ArrayList<>();
    jdbc.query(
        "SELECT consumer_group, event_id, reason FROM txmsg_dead_letter"
            + " WHERE kind = 'MESSAGE' AND status = 'PARKED'",
        rs -> {
          String row = rs.getString(1) + "/" + rs.getString(2) + "/" + rs.getString(3);
          stillParked.add(row);
          if (!run.poisonIds().contains(rs.getString(2))
              || !"UNDECODABLE_PAYLOAD".equals(rs.getString(3))) {
            unexpected.add(row);
          }
        });
    long expectedConflicts = 3L * run.conflictsSent();
    long conflicts = count("SELECT COUNT(*) FROM txmsg_dead_letter WHERE kind = 'CONFLICT'");
    r.check(
        "only the poison messages remain parked, every conflict is recorded",
        unexpected.isEmpty()
            && stillParked.size() == 3 * run.poisonIds().size()
            && conflicts == expectedConflicts,
        stillParked.size()
            + " parked (expected "
            + 3 * run.poisonIds().size()
            + " undecodable)"
            + (unexpected.isEmpty()
                ? ""
                : ", unexpected: " + unexpected.stream().limit(5).collect(Collectors.joining(", ")))
            + "; conflicts "
            + conflicts
            + " of "
            + expectedConflicts);
  }

  private long applied(String group) {
    return count(
        "SELECT COUNT(*) FROM txmsg_consume_log WHERE consumer_group = ? AND status = 'SUCCESS'",
        group);
  }

  private long count(String sql, Object... args) {
    Long n = jdbc.queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }
}
