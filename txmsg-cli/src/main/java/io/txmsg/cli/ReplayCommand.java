package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.cli.DlqCommand.TimeBound;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetterSelector;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.consume.ReplayRequests;
import io.txmsg.store.consume.ReplayStatus;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code txmsg replay}: asks the application's replay worker to run parked messages of ONE consumer
 * group through its handlers again, with the original eventId, never through the shared topic. The
 * request and the selected dead letters (PARKED → REPLAY_REQUESTED) are written in one transaction
 * together with the audit row; {@code --dry-run} only lists what would be replayed (and audits the
 * dry run). Follow a request with {@code txmsg replay --show <requestId>}.
 */
@Command(
    name = "replay",
    description = "Request a rate-limited, audited replay of parked messages of one group.")
final class ReplayCommand extends DbCommand {
  @Option(names = "--group", paramLabel = "<group>", description = "The consumer group (required).")
  String group;

  @Option(names = "--ids", split = ",", paramLabel = "<eventId>", description = "Only these ids.")
  List<String> ids = new ArrayList<>();

  @Mixin DeadLetterFilter filter;

  @Option(
      names = "--parked-reason",
      paramLabel = "<reason>",
      description = "Only rows parked for this reason: ${COMPLETION-CANDIDATES}.")
  ParkReason parkedReason;

  @Option(
      names = "--rate",
      defaultValue = "10",
      paramLabel = "<n/s>",
      description = "Events per second (default ${DEFAULT-VALUE}).")
  String rate;

  @Option(
      names = "--batch",
      defaultValue = "1000",
      paramLabel = "<n>",
      description = "At most this many rows in this request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--canary",
      defaultValue = "5",
      paramLabel = "<n>",
      description = "Replay this many first and stop if any fails (default ${DEFAULT-VALUE}).")
  int canary;

  @Option(
      names = "--max-failure-ratio",
      defaultValue = "0.2",
      paramLabel = "<ratio>",
      description = "Stop when failed/done exceeds this (default ${DEFAULT-VALUE}).")
  BigDecimal maxFailureRatio;

  @Option(names = "--dry-run", description = "Only list the rows that would be replayed.")
  boolean dryRun;

  @Option(names = "--reason", paramLabel = "<text>", description = "Why (required).")
  String reason;

  @Option(
      names = "--operator",
      paramLabel = "<name>",
      description = "Who asks (default: the OS user).")
  String operator = System.getProperty("user.name");

  @Option(
      names = "--take-over",
      paramLabel = "<requestId>",
      description =
          "First stop a request left RUNNING by a worker that died and put its rows back to"
              + " PARKED, so this request can select them.")
  String takeOver;

  @Option(
      names = "--show",
      paramLabel = "<requestId>",
      description = "Show the audit row of an earlier request instead.")
  String show;

  private int ratePerSecond;

  @Override
  void validate() {
    if (show != null) {
      return;
    }
    if (group == null || group.isBlank()) {
      throw usage("--group is required: a replay runs the handlers of one consumer group");
    }
    if (reason == null || reason.isBlank()) {
      throw usage("--reason is required: it is recorded in the audit with the operator");
    }
    String r = rate.endsWith("/s") ? rate.substring(0, rate.length() - 2) : rate;
    try {
      ratePerSecond = Integer.parseInt(r);
    } catch (NumberFormatException e) {
      throw usage("--rate must be a whole number of events per second, e.g. 20 or 20/s");
    }
    if (ratePerSecond < 1 || ratePerSecond > 10_000) {
      throw usage("--rate must be 1..10000 per second");
    }
    if (batch < 1 || batch > 100_000 || canary < 0) {
      throw usage("--batch must be 1..100000 and --canary >= 0");
    }
    if (maxFailureRatio.signum() < 0 || maxFailureRatio.compareTo(BigDecimal.ONE) > 0) {
      throw usage("--max-failure-ratio must be between 0 and 1");
    }
  }

  @Override
  int run(Database db, Output out) throws Exception {
    if (show != null) {
      ReplayRequestRow row = db.replayRequests().find(show);
      if (row == null) {
        err().println("txmsg: no replay request " + LogSafe.quote(show));
        return TxmsgCli.FINDINGS;
      }
      Map<String, Object> map = Output.map(row);
      if (out.json()) {
        out.json(map);
      } else {
        out.record(map);
      }
      return TxmsgCli.OK;
    }
    DeadLetterSelector s = selector(db);
    String requestId = UUID.randomUUID().toString();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("request_id", requestId);
    doc.put("dry_run", dryRun);
    int selected =
        db.inTransaction(
            c -> {
              ReplayRequests m = db.replayRequests();
              if (takeOver != null && !dryRun) {
                m.finish(
                    c, takeOver, ReplayStatus.STOPPED, "taken over by " + operator + ": " + reason);
              }
              List<DeadLetterRow> rows = m.selectParked(c, s, batch);
              if (dryRun) {
                List<Map<String, Object>> maps = rows.stream().map(Output::map).toList();
                doc.put("rows", maps);
                if (!out.json()) {
                  out.table(
                      maps,
                      List.of(
                          "event_id",
                          "reason",
                          "event_type",
                          "aggregate_id",
                          "aggregate_version",
                          "business_key",
                          "created_at",
                          "error_message"));
                }
              } else {
                s.setEventIds(rows.stream().map(DeadLetterRow::getEventId).toList());
                if (!rows.isEmpty() && m.markRequested(c, s, requestId) != rows.size()) {
                  throw new IllegalStateException("dead letters changed meanwhile; run it again");
                }
              }
              m.insert(c, audit(requestId, s, rows.size()));
              return rows.size();
            });
    doc.put("selected", selected);
    if (out.json()) {
      out.json(doc);
    } else if (dryRun) {
      out.writer().println("(dry run: " + selected + " rows would be replayed; nothing changed)");
    } else {
      out.writer()
          .println(
              "replay request "
                  + requestId
                  + ": "
                  + selected
                  + " dead letters of group "
                  + LogSafe.quote(group)
                  + " marked REPLAY_REQUESTED; the application replays them at "
                  + ratePerSecond
                  + "/s (canary "
                  + canary
                  + "). Follow it with: txmsg replay --show "
                  + requestId);
    }
    return selected == 0 ? TxmsgCli.FINDINGS : TxmsgCli.OK;
  }

  private DeadLetterSelector selector(Database db) {
    DeadLetterSelector s = new DeadLetterSelector();
    s.setConsumerGroup(group);
    s.setEventIds(ids.isEmpty() ? null : ids);
    s.setSince(instant(filter.since));
    s.setUntil(instant(filter.until));
    s.setEventType(filter.eventType);
    s.setBusinessKey(filter.businessKey);
    s.setReason(parkedReason);
    return s;
  }

  /** A duration bound counts back from this machine's clock (a replay selects by created_at). */
  private static Instant instant(TimeBound b) {
    if (b == null) {
      return null;
    }
    return b.at() != null ? b.at() : Instant.now().minus(b.ago());
  }

  private ReplayRequestRow audit(String requestId, DeadLetterSelector s, int selected) {
    ReplayRequestRow r = new ReplayRequestRow();
    r.setRequestId(requestId);
    r.setOperator(operator);
    r.setReason(reason);
    r.setConsumerGroup(group);
    r.setSelector(describe(s));
    r.setRatePerSecond(ratePerSecond);
    r.setCanary(canary);
    r.setMaxFailureRatio(maxFailureRatio);
    r.setDryRun(dryRun);
    r.setStatus(
        dryRun ? ReplayStatus.DRY_RUN : selected == 0 ? ReplayStatus.DONE : ReplayStatus.REQUESTED);
    r.setFinishedAt(dryRun || selected == 0 ? Instant.now() : null);
    r.setSelected(selected);
    return r;
  }

  private String describe(DeadLetterSelector s) {
    StringBuilder b = new StringBuilder("group=").append(group);
    if (!ids.isEmpty()) {
      b.append(" ids=").append(String.join(",", ids));
    }
    append(b, "since", s.getSince());
    append(b, "until", s.getUntil());
    append(b, "eventType", filter.eventType);
    append(b, "businessKey", filter.businessKey);
    append(b, "parkedReason", s.getReason());
    b.append(" batch=").append(batch);
    String text = b.toString();
    return text.length() > 2000 ? text.substring(0, 1997) + "..." : text;
  }

  private static void append(StringBuilder b, String name, Object value) {
    if (value != null) {
      b.append(' ').append(name).append('=').append(value);
    }
  }
}
