package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.journal.JournalRow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code txmsg trace <eventId|businessKey>}: everything one event left in this database, in one
 * aligned view: the journal row (producer), each consumer group's consume-log row, the dead
 * letters, and the replays those dead letters point to. The argument is tried as an event id first,
 * then as a business key (which may match several events).
 *
 * <p>Each line's TIME is when that row began, and TIME_IS names the column it comes from: the
 * journal's {@code created_at} (the event's origin time, on the producer's clock), the consume
 * log's {@code first_received_at}, a dead letter's {@code created_at} (when it was parked), a
 * replay's {@code requested_at}. Later times are in DETAIL ({@code sent_at}, {@code updated_at},
 * {@code finished_at}). Not the journal's {@code updated_at} as its TIME: it is often later than
 * every consume-log row (confirmation marks the row SENT after the consumers got the event), which
 * would put the producer's line, listed first, after the consumers' lines in time.
 */
@Command(
    name = "trace",
    description = {
      "Follow an event: journal -> consume log per group -> dead letters -> replays.",
      "The argument is an event id or, if no row has that id, a business key.",
      "TIME is when each row began; TIME_IS names its column (journal created_at, the",
      "event's origin time; consume log first_received_at; dead letter created_at, when",
      "parked; replay requested_at). DETAIL shows later times (sent_at, updated_at,",
      "finished_at)."
    })
final class TraceCommand extends DbCommand {
  @Parameters(paramLabel = "<eventId|businessKey>")
  String key;

  @Option(
      names = "--limit",
      defaultValue = "20",
      paramLabel = "<n>",
      description = "At most this many events for a business key (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--show-payload", description = "Include payloads in --json output.")
  boolean showPayload;

  /** The rows of one event. */
  private record Trace(
      String eventId,
      JournalRow journal,
      List<ConsumeLogRow> consumeLog,
      List<DeadLetterRow> deadLetters,
      List<ReplayRequestRow> replays) {
    boolean empty() {
      return journal == null && consumeLog.isEmpty() && deadLetters.isEmpty();
    }
  }

  @Override
  void validate() {
    if (limit < 1 || limit > 1000) {
      throw usage("--limit must be 1..1000, was " + limit);
    }
  }

  @Override
  int run(Database db, Output out) throws Exception {
    List<Trace> traces = new ArrayList<>();
    Trace byId = load(db, key);
    if (!byId.empty()) {
      traces.add(byId);
    } else {
      db.noteUnindexedBusinessKeySearch(err());
      Set<String> ids = new LinkedHashSet<>();
      ids.addAll(db.query((ops, c) -> ops.journalEventIdsByBusinessKey(c, key, limit)));
      ids.addAll(db.query((ops, c) -> ops.deadLetterEventIdsByBusinessKey(c, key, limit)));
      for (String id : ids.stream().limit(limit).toList()) {
        traces.add(load(db, id));
      }
    }
    if (traces.isEmpty()) {
      err().println("txmsg: no row has event id or business key " + LogSafe.quote(key));
      return TxmsgCli.FINDINGS;
    }
    if (out.json()) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("query", key);
      doc.put("events", traces.stream().map(this::json).toList());
      out.json(doc);
    } else {
      List<List<String>> rows = new ArrayList<>();
      for (Trace t : traces) {
        addRows(t, rows);
      }
      out.printAligned(
          List.of("EVENT_ID", "SOURCE", "GROUP", "STATUS", "TIME", "TIME_IS", "DETAIL"), rows);
    }
    return TxmsgCli.OK;
  }

  private static Trace load(Database db, String eventId) throws Exception {
    JournalRow journal = db.journal().find(eventId);
    List<ConsumeLogRow> consumed = db.query((ops, c) -> ops.consumeLogByEvent(c, eventId));
    List<DeadLetterRow> dead = db.query((ops, c) -> ops.deadLettersByEvent(c, eventId));
    List<String> requestIds =
        dead.stream()
            .map(DeadLetterRow::getReplayRequestId)
            .filter(Objects::nonNull)
            .distinct()
            .toList();
    List<ReplayRequestRow> replays =
        requestIds.isEmpty() ? List.of() : db.query((ops, c) -> ops.replayAudits(c, requestIds));
    return new Trace(eventId, journal, consumed, dead, replays);
  }

  private Map<String, Object> json(Trace t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event_id", t.eventId());
    m.put(
        "journal",
        t.journal() == null
            ? null
            : Output.map(t.journal(), t.journal().getPayload(), showPayload));
    m.put("consume_log", t.consumeLog().stream().map(Output::map).toList());
    m.put(
        "dead_letters",
        t.deadLetters().stream().map(d -> Output.map(d, d.getPayload(), showPayload)).toList());
    m.put("replays", t.replays().stream().map(Output::map).toList());
    return m;
  }

  private static void addRows(Trace t, List<List<String>> rows) {
    String id = t.eventId();
    JournalRow j = t.journal();
    if (j == null) {
      rows.add(row(id, "journal", null, "(none)", null, null, "no journal row in this database"));
    } else {
      rows.add(
          row(
              id,
              "journal",
              null,
              j.getStatus(),
              j.getCreatedAt(),
              "created_at",
              "topic="
                  + j.getDestination()
                  + " type="
                  + j.getEventType()
                  + " key="
                  + j.getBusinessKey()
                  + " retries="
                  + j.getRetryCount()
                  + (j.getLastErrorCode() == null ? "" : " error=" + j.getLastErrorCode())
                  + (j.getSentAt() == null ? "" : " sent_at=" + j.getSentAt())
                  + " updated_at="
                  + j.getUpdatedAt()));
    }
    for (ConsumeLogRow c : t.consumeLog()) {
      rows.add(
          row(
              id,
              "consume_log",
              c.getConsumerGroup(),
              c.getStatus(),
              c.getFirstReceivedAt(),
              "first_received_at",
              "attempt="
                  + c.getAttempt()
                  + (c.getResultRef() == null ? "" : " result=" + c.getResultRef())
                  + " updated_at="
                  + c.getUpdatedAt()));
    }
    for (DeadLetterRow d : t.deadLetters()) {
      rows.add(
          row(
              id,
              "dead_letter",
              d.getConsumerGroup(),
              d.getStatus(),
              d.getCreatedAt(),
              "created_at",
              d.getKind()
                  + " reason="
                  + d.getReason()
                  + " attempt="
                  + d.getAttempt()
                  + (d.getReplayRequestId() == null ? "" : " replay=" + d.getReplayRequestId())
                  + (d.getErrorClass() == null
                      ? ""
                      : " error="
                          + d.getErrorClass()
                          + ": "
                          + Output.cell(d.getErrorMessage(), true))
                  + " updated_at="
                  + d.getUpdatedAt()));
    }
    for (ReplayRequestRow r : t.replays()) {
      rows.add(
          row(
              id,
              "replay",
              r.getConsumerGroup(),
              r.getStatus(),
              r.getRequestedAt(),
              "requested_at",
              "request="
                  + r.getRequestId()
                  + " by="
                  + r.getOperator()
                  + (r.getDryRun() ? " dry-run" : "")
                  + " selected="
                  + r.getSelected()
                  + " ok="
                  + r.getSucceeded()
                  + " failed="
                  + r.getFailed()
                  + (r.getStoppedReason() == null ? "" : " stopped=" + r.getStoppedReason())
                  + (r.getFinishedAt() == null ? "" : " finished_at=" + r.getFinishedAt())));
    }
  }

  private static List<String> row(
      String id,
      String source,
      String group,
      Object status,
      Object time,
      String timeIs,
      String detail) {
    return List.of(
        Output.cell(id, true),
        source,
        Output.cell(group, true),
        Output.cell(status, true),
        Output.cell(time, true),
        Output.cell(timeIs, true),
        Output.cell(detail, false));
  }
}
