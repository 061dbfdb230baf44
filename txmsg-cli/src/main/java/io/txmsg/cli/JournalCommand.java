package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.consume.ReplayStatus;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.ops.JournalCount;
import io.txmsg.store.ops.JournalOldest;
import io.txmsg.store.ops.JournalQuery;
import io.txmsg.store.ops.OpsQueries;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code txmsg journal list|show|stats}: the producer side, one row per committed event. */
@Command(
    name = "journal",
    description = "Inspect the producer journal (one row per committed event).",
    subcommands = {
      JournalCommand.ListJournal.class,
      JournalCommand.Show.class,
      JournalCommand.Stats.class,
      JournalCommand.Requeue.class
    })
final class JournalCommand extends CommandGroup {

  @Command(
      name = "list",
      description = "List journal rows, oldest first (keyset paging with --after).")
  static final class ListJournal extends DbCommand {
    @Option(
        names = "--status",
        split = ",",
        paramLabel = "<status>",
        description = "Only these statuses: ${COMPLETION-CANDIDATES}.")
    List<JournalStatus> statuses = new ArrayList<>();

    @Option(names = "--destination", paramLabel = "<topic>", description = "Only this topic.")
    String destination;

    @Option(names = "--event-type", paramLabel = "<type>", description = "Only this event type.")
    String eventType;

    @Option(names = "--business-key", paramLabel = "<key>", description = "Only this business key.")
    String businessKey;

    @Option(
        names = "--older-than",
        paramLabel = "<duration>",
        converter = Durations.Converter.class,
        description = "Only rows created more than this long ago (5m, 2h, 1d).")
    Duration olderThan;

    @Option(
        names = "--limit",
        defaultValue = "50",
        paramLabel = "<n>",
        description = "Rows per page (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(
        names = "--after",
        paramLabel = "<eventId>",
        description = "Continue after this event id (the last row of the previous page).")
    String after;

    @Override
    void validate() {
      if (limit < 1 || limit > 10_000) {
        throw usage("--limit must be 1..10000, was " + limit);
      }
    }

    @Override
    int run(Database db, Output out) throws Exception {
      if (after != null && db.query((ops, c) -> ops.journalExists(c, after)) == 0) {
        throw usage("--after: no journal row with event id " + LogSafe.quote(after));
      }
      if (businessKey != null) {
        db.noteUnindexedBusinessKeySearch(err());
      }
      JournalQuery q =
          new JournalQuery(
              statuses,
              destination,
              eventType,
              businessKey,
              olderThan == null ? null : olderThan.toMillis(),
              after,
              limit);
      List<JournalRow> rows = db.query((ops, c) -> ops.listJournal(c, q));
      String next = rows.size() == limit ? rows.get(rows.size() - 1).getEventId() : null;
      List<Map<String, Object>> maps = rows.stream().map(Output::map).toList();
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("rows", maps);
        doc.put("next_after", next);
        out.json(doc);
      } else {
        out.table(
            maps,
            List.of(
                "event_id",
                "status",
                "destination",
                "event_type",
                "business_key",
                "retry_count",
                "created_at",
                "updated_at",
                "last_error_code"));
        out.writer()
            .println(
                "("
                    + rows.size()
                    + " rows"
                    + (next == null ? ")" : "; next page: --after " + next + ")"));
      }
      return TxmsgCli.OK;
    }
  }

  @Command(name = "show", description = "Show one journal row.")
  static final class Show extends DbCommand {
    @Parameters(paramLabel = "<eventId>")
    String eventId;

    @Option(names = "--show-payload", description = "Print the payload (hidden by default).")
    boolean showPayload;

    @Override
    int run(Database db, Output out) throws Exception {
      JournalRow row = db.journal().find(eventId);
      if (row == null) {
        err().println("txmsg: no journal row with event id " + LogSafe.quote(eventId));
        return TxmsgCli.FINDINGS;
      }
      Map<String, Object> map = Output.map(row, row.getPayload(), showPayload);
      map.put("published_as", publishedAs(row));
      if (out.json()) {
        out.json(map);
      } else {
        out.record(map);
      }
      return TxmsgCli.OK;
    }
  }

  /**
   * How the row is (re)published, in words, for incidents: which path delivers it and therefore
   * which runbook entry applies when it is stuck.
   */
  static String publishedAs(JournalRow row) {
    if (row.getPublishMode() == PublishMode.SEND) {
      String how =
          row.getMessageGroup() == null
              ? "plain send"
              : "FIFO send in message group "
                  + LogSafe.quote(row.getMessageGroup())
                  + " (waits for lower aggregate versions)";
      return how
          + " after commit (OUTBOX-style; no check-back; the reconciler sends what was not"
          + " sent after publishAfter)";
    }
    return "half message committed after the local transaction (check-back resolves it; the"
        + " reconciler republishes it as a half message committed at once after republishAfter)";
  }

  @Command(
      name = "stats",
      description = {
        "Row counts per status and destination, age of the oldest unconfirmed",
        "(PENDING, SENDING, RETRY) row by the database clock, DEAD count."
      })
  static final class Stats extends DbCommand {
    @Option(
        names = "--fail-if-oldest-pending",
        paramLabel = "<duration>",
        converter = Durations.Converter.class,
        description =
            "Exit 1 when the oldest PENDING, SENDING or RETRY row is older than this (for alerts).")
    Duration failIfOldestPending;

    @Override
    int run(Database db, Output out) throws Exception {
      List<JournalCount> counts = db.query(OpsQueries::journalCounts);
      List<JournalOldest> oldest = db.query(OpsQueries::journalOldest);
      Map<String, Long> byStatus = new TreeMap<>();
      for (JournalCount c : counts) {
        byStatus.merge(c.getStatus().name(), c.getCount(), Long::sum);
      }
      Map<String, Duration> ages = new TreeMap<>();
      Duration oldestUnconfirmed = null;
      for (JournalOldest o : oldest) {
        if (o.getOldest() != null && o.getDbNow() != null) {
          Duration age = Duration.between(o.getOldest(), o.getDbNow());
          ages.put(o.getStatus().name(), age);
          if (oldestUnconfirmed == null || age.compareTo(oldestUnconfirmed) > 0) {
            oldestUnconfirmed = age;
          }
        }
      }
      long dead = byStatus.getOrDefault(JournalStatus.DEAD.name(), 0L);
      boolean exceeded =
          failIfOldestPending != null
              && oldestUnconfirmed != null
              && oldestUnconfirmed.compareTo(failIfOldestPending) > 0;
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("by_status_destination", counts.stream().map(Output::map).toList());
        doc.put("by_status", byStatus);
        Map<String, Long> ageMillis = new TreeMap<>();
        ages.forEach((k, v) -> ageMillis.put(k, v.toMillis()));
        doc.put("oldest_age_millis", ageMillis);
        doc.put(
            "oldest_unconfirmed_age_millis",
            oldestUnconfirmed == null ? null : oldestUnconfirmed.toMillis());
        doc.put("dead", dead);
        doc.put("threshold_exceeded", exceeded);
        out.json(doc);
      } else {
        out.table(
            counts.stream().map(Output::map).toList(), List.of("status", "destination", "count"));
        out.writer().println();
        List<List<String>> rows = new ArrayList<>();
        byStatus.forEach(
            (status, n) ->
                rows.add(List.of(status, Long.toString(n), Durations.format(ages.get(status)))));
        out.printAligned(List.of("STATUS", "ROWS", "OLDEST_AGE"), rows);
        out.writer().println();
        out.writer()
            .println(
                "oldest unconfirmed (PENDING/SENDING/RETRY): "
                    + (oldestUnconfirmed == null ? "none" : Durations.format(oldestUnconfirmed))
                    + "; DEAD: "
                    + dead);
      }
      if (exceeded) {
        err()
            .println(
                "txmsg: oldest unconfirmed journal row is "
                    + Durations.format(oldestUnconfirmed)
                    + " old, above --fail-if-oldest-pending "
                    + Durations.format(failIfOldestPending));
        return TxmsgCli.FINDINGS;
      }
      return TxmsgCli.OK;
    }
  }

  @Command(
      name = "requeue",
      description = "Re-queue DEAD journal rows for the reconciler to publish again (audited).")
  static final class Requeue extends DbCommand {
    @Option(
        names = "--ids",
        split = ",",
        required = true,
        paramLabel = "<eventId>",
        description = "The DEAD rows to re-queue.")
    List<String> ids = new ArrayList<>();

    @Option(
        names = "--consume-log-retention",
        defaultValue = "7d",
        paramLabel = "<duration>",
        converter = Durations.Converter.class,
        description =
            "Rows older than this stay DEAD: consumers could no longer deduplicate them"
                + " (default ${DEFAULT-VALUE}).")
    Duration retention;

    @Option(names = "--reason", required = true, paramLabel = "<text>", description = "Why.")
    String reason;

    @Option(names = "--operator", paramLabel = "<name>", description = "Default: the OS user.")
    String operator = System.getProperty("user.name");

    @Override
    void validate() {
      if (reason.isBlank()) {
        throw usage("--reason must not be blank");
      }
      if (ids.size() > 10_000) {
        throw usage("at most 10000 ids per requeue");
      }
    }

    @Override
    int run(Database db, Output out) throws Exception {
      String requestId = java.util.UUID.randomUUID().toString();
      int requeued =
          db.inTransaction(
              c -> {
                int n =
                    db.journal()
                        .requeueDead(
                            c,
                            ids,
                            retention.toMillis(),
                            "re-queued by " + operator + ": " + reason);
                ReplayRequestRow audit = new ReplayRequestRow();
                audit.setRequestId(requestId);
                audit.setOperator(operator);
                audit.setReason(reason);
                String selector = "journal requeue ids=" + String.join(",", ids);
                audit.setSelector(
                    selector.length() > 2000 ? selector.substring(0, 1997) + "..." : selector);
                audit.setStatus(ReplayStatus.DONE);
                audit.setFinishedAt(java.time.Instant.now());
                audit.setSelected(ids.size());
                audit.setSucceeded(n);
                audit.setFailed(ids.size() - n);
                if (n < ids.size()) {
                  audit.setStoppedReason(
                      (ids.size() - n) + " rows not DEAD or older than the consume-log retention");
                }
                db.replayRequests().insert(c, audit);
                return n;
              });
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("request_id", requestId);
      doc.put("requeued", requeued);
      doc.put("refused", ids.size() - requeued);
      if (out.json()) {
        out.json(doc);
      } else {
        out.writer()
            .println(
                requeued
                    + " of "
                    + ids.size()
                    + " rows re-queued as RETRY (audit "
                    + requestId
                    + ")"
                    + (requeued < ids.size()
                        ? "; the others are not DEAD or older than " + retention + " and stay"
                        : ""));
      }
      return requeued == ids.size() ? TxmsgCli.OK : TxmsgCli.FINDINGS;
    }
  }
}
