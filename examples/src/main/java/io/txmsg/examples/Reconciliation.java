package io.txmsg.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.examples.app.ConsumeMetrics;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.faults.FaultPlan;
import io.txmsg.examples.faults.FaultPlan.Fault;
import io.txmsg.examples.notification.FakeSmsGateway;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Builds the {@link ReconciliationReport} from the database: the txmsg tables (journal, attempt,
 * consume log, versions, dead letters, commands) against the application's own tables. The only
 * figures not read from the database are labelled: the injected fault counts, the duplicate count
 * (Micrometer: an absorbed duplicate leaves no row, by design) and the SMS gateway's own counts (it
 * is the "external system").
 */
final class Reconciliation {
  private static final List<String> GROUPS =
      List.of(PaymentEvents.POINTS, PaymentEvents.NOTIFICATION, PaymentEvents.SEARCH_PROJECTION);

  private final JdbcTemplate jdbc;
  private final MeterRegistry registry;
  private final FakeSmsGateway gateway;
  private final FaultPlan plan;

  Reconciliation(
      JdbcTemplate jdbc, MeterRegistry registry, FakeSmsGateway gateway, FaultPlan plan) {
    this.jdbc = jdbc;
    this.registry = registry;
    this.gateway = gateway;
    this.plan = plan;
  }

  ReconciliationReport build(DemoRun run) {
    ReconciliationReport r = new ReconciliationReport();
    r.pending(run.pending());
    producerFigures(r, run);
    consumerFigures(r);
    throughputAndLatency(r, run);
    faultFigures(r);
    new Invariants(jdbc, gateway).check(r, run);
    return r;
  }

  private void producerFigures(ReconciliationReport r, DemoRun run) {
    r.figure("orders requested", plan.orders());
    r.figure("committed payments (payment rows)", count("SELECT COUNT(*) FROM payment"));
    r.figure(
        "journal rows by status",
        groupCount("SELECT status, COUNT(*) FROM txmsg_journal GROUP BY status"));
    r.figure(
        "journal rows by event type",
        groupCount("SELECT event_type, COUNT(*) FROM txmsg_journal GROUP BY event_type"));
    r.figure(
        "attempts by state (txmsg_attempt)",
        groupCount("SELECT state, COUNT(*) FROM txmsg_attempt GROUP BY state"));
    r.figure(
        "check-backs answered by the payment resolver (audit table)",
        groupCount(
            "SELECT answered_by, resolution, COUNT(*) FROM payment_checkback_audit"
                + " GROUP BY answered_by, resolution"));
    r.figure(
        "check-backs counted in journal.checkback_count (rows / sum)",
        count("SELECT COUNT(*) FROM txmsg_journal WHERE checkback_count > 0")
            + " / "
            + count("SELECT COALESCE(SUM(checkback_count), 0) FROM txmsg_journal"));
    r.figure(
        "check-backs routed to the fault injector's raw producer (in-memory)",
        run.checkbacksAtFaultInjector());
    r.figure(
        "PaymentSucceeded events answered COMMIT by a check-back (audit)",
        count(
            "SELECT COUNT(DISTINCT event_id) FROM payment_checkback_audit"
                + " WHERE resolution = 'COMMIT'"));
    // No republish counter exists. HALF_MESSAGE in CONSUMER confirmation mode: only a republish
    // sets broker_message_id (the first send leaves it NULL). OUTBOX: every send records it.
    r.figure(
        "rows with journal.broker_message_id (half message: republished; outbox: all sent)",
        count("SELECT COUNT(*) FROM txmsg_journal WHERE broker_message_id IS NOT NULL"));
    r.figure(
        "client retries (same eventId) / failed commands", run.retried() + " / " + run.failed());
  }

  private void consumerFigures(ReconciliationReport r) {
    for (String g : GROUPS) {
      Map<String, Long> byStatus =
          groupCountMap(
              "SELECT status, COUNT(*) FROM txmsg_consume_log WHERE consumer_group = '"
                  + g
                  + "' GROUP BY status");
      long delivered = byStatus.values().stream().mapToLong(Long::longValue).sum();
      r.figure(
          g + ": delivered / applied / stale skipped / parked",
          delivered
              + " / "
              + byStatus.getOrDefault("SUCCESS", 0L)
              + " / "
              + byStatus.getOrDefault("SKIPPED_STALE", 0L)
              + " / "
              + byStatus.getOrDefault("PARKED", 0L));
      r.figure(
          g + ": duplicates absorbed (metric demo.consume outcome=duplicate)",
          ConsumeMetrics.count(registry, g, ConsumeOutcome.DUPLICATE));
    }
    r.figure(
        "dead letters by kind/reason/status",
        groupCount(
            "SELECT kind, reason, status, COUNT(*) FROM txmsg_dead_letter"
                + " GROUP BY kind, reason, status"));
    r.figure(
        "conflicts parked (dead_letter kind CONFLICT)",
        count("SELECT COUNT(*) FROM txmsg_dead_letter WHERE kind = 'CONFLICT'"));
    r.figure(
        "replayed rows (dead_letter status REPLAYED)",
        count("SELECT COUNT(*) FROM txmsg_dead_letter WHERE status = 'REPLAYED'"));
    r.figure(
        "commands by status (txmsg_command)",
        groupCount("SELECT status, COUNT(*) FROM txmsg_command GROUP BY status"));
    r.figure(
        "command executions / commands retried",
        count("SELECT COALESCE(SUM(attempts), 0) FROM txmsg_command")
            + " / "
            + count("SELECT COUNT(*) FROM txmsg_command WHERE attempts > 1"));
    r.figure(
        "sms gateway: calls / keys sent / repeated calls absorbed (gateway's own counts)",
        gateway.calls() + " / " + gateway.sendsPerKey().size() + " / " + gateway.dedupHits());
  }

  private void throughputAndLatency(ReconciliationReport r, DemoRun run) {
    long payments = count("SELECT COUNT(*) FROM payment");
    r.figure(
        "produce phase: payments/s",
        String.format(
            "%.0f (%d in %.1f s)",
            payments / run.produceSeconds(), payments, run.produceSeconds()));
    for (String[] t :
        List.of(
            new String[] {PaymentEvents.POINTS, "points_ledger"},
            new String[] {PaymentEvents.NOTIFICATION, "sms_notification"},
            new String[] {PaymentEvents.SEARCH_PROJECTION, "order_projection_history"})) {
      List<Long> inAppliedOrder =
          jdbc.queryForList(
              "SELECT latency_ms FROM "
                  + t[1]
                  + " WHERE latency_ms IS NOT NULL ORDER BY applied_at, latency_ms",
              Long.class);
      List<Long> latencies = new java.util.ArrayList<>(inAppliedOrder);
      latencies.sort(null);
      Map<String, Object> span =
          jdbc.queryForMap(
              "SELECT COUNT(*) AS n, MIN(applied_at) AS lo, MAX(applied_at) AS hi FROM "
                  + t[1]
                  + " WHERE latency_ms IS NOT NULL"); // replays excluded
      long n = ((Number) span.get("n")).longValue();
      double seconds =
          n < 2
              ? 1
              : (((Number) span.get("hi")).longValue() - ((Number) span.get("lo")).longValue())
                  / 1000.0;
      r.figure(
          t[0] + ": commit→handler latency p50 / p99 / max (ms), applied/s",
          pct(latencies, 50)
              + " / "
              + pct(latencies, 99)
              + " / "
              + pct(latencies, 100)
              + String.format(", %.0f/s", n / Math.max(seconds, 0.001)));
      QueueingCheck.trend(inAppliedOrder)
          .ifPresent(trend -> r.figure(t[0] + ": " + QUEUEING, queueing(trend, run)));
    }
    r.figure("wall time (s)", String.format("%.1f", run.wallSeconds()));
  }

  /** The figure name of a group's latency trend ({@link QueueingCheck}). */
  static final String QUEUEING = "latency p50 in the first / last fifth of the run (ms)";

  private static String queueing(QueueingCheck.Trend trend, DemoRun run) {
    String figure = trend.firstFifthP50() + " / " + trend.lastFifthP50();
    if (!trend.queued()) {
      return figure + ", steady";
    }
    String offered =
        run.offeredRate() > 0
            ? "the " + run.offeredRate() + " payments/s offered"
            : "the load (--rate 0 offers all at once)";
    return figure
        + ", QUEUEING: "
        + offered
        + " exceeded what this group sustained here, so its latencies above are mostly time spent"
        + " waiting in its queue; lower --rate or raise --consumer-threads to see the pipeline's"
        + " own latency";
  }

  private void faultFigures(ReconciliationReport r) {
    StringBuilder s = new StringBuilder();
    for (Fault f : Fault.values()) {
      s.append(s.length() == 0 ? "" : ", ")
          .append(f.name().toLowerCase().replace('_', '-'))
          .append('=')
          .append(plan.on(f) ? plan.injectedCount(f) : "off");
    }
    r.figure("faults injected (in-memory counts)", s);
  }

  private static String pct(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return "-";
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return String.valueOf(sorted.get(Math.max(0, Math.min(i, sorted.size() - 1))));
  }

  private long count(String sql, Object... args) {
    Long n = jdbc.queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }

  private Map<String, Long> groupCountMap(String sql) {
    Map<String, Long> out = new java.util.TreeMap<>();
    jdbc.query(
        sql,
        rs -> {
          int keys = rs.getMetaData().getColumnCount() - 1;
          StringBuilder key = new StringBuilder();
          for (int i = 1; i <= keys; i++) {
            key.append(i > 1 ? "/" : "").append(rs.getString(i));
          }
          out.put(key.toString(), rs.getLong(keys + 1));
        });
    return out;
  }

  private String groupCount(String sql) {
    Map<String, Long> m = groupCountMap(sql);
    return m.isEmpty() ? "none" : m.toString();
  }
}
