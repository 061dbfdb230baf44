package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetterStatus;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.ops.DeadLetterQuery;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code txmsg dlq list|show}: parked messages and conflicts of the consumer groups. */
@Command(
    name = "dlq",
    description = "Inspect dead letters (parked messages and conflicts).",
    subcommands = {DlqCommand.ListDeadLetters.class, DlqCommand.Show.class})
final class DlqCommand extends CommandGroup {

  /** A time bound: a duration back from the database's now, or an absolute time. */
  record TimeBound(Duration ago, Instant at) {}

  /** Parses {@code 2h} (ago) or {@code 2024-05-01T10:00:00Z} / {@code 2024-05-01T10:00}. */
  static final class TimeBoundConverter implements ITypeConverter<TimeBound> {
    @Override
    public TimeBound convert(String value) {
      try {
        return new TimeBound(Durations.parse(value), null);
      } catch (IllegalArgumentException notADuration) {
        try {
          return new TimeBound(null, Instant.parse(value));
        } catch (DateTimeParseException notAnInstant) {
          try {
            // Local date-time in this JVM's zone, like the timestamps the CLI prints back.
            return new TimeBound(
                null, LocalDateTime.parse(value).atZone(ZoneId.systemDefault()).toInstant());
          } catch (DateTimeParseException e) {
            throw new TypeConversionException(
                "invalid time "
                    + LogSafe.quote(value)
                    + ": use a duration ago (30m, 2h, 7d) or a time (2024-05-01T10:00:00Z)");
          }
        }
      }
    }
  }

  @Command(name = "list", description = "List dead letters, oldest first.")
  static final class ListDeadLetters extends DbCommand {
    @Option(names = "--group", paramLabel = "<group>", description = "Only this consumer group.")
    String group;

    @Option(
        names = "--status",
        split = ",",
        paramLabel = "<status>",
        description = "Only these statuses: ${COMPLETION-CANDIDATES}.")
    List<DeadLetterStatus> statuses = new ArrayList<>();

    @Option(
        names = "--reason",
        split = ",",
        paramLabel = "<reason>",
        description = "Only these reasons: ${COMPLETION-CANDIDATES}.")
    List<ParkReason> reasons = new ArrayList<>();

    @Option(
        names = "--kind",
        paramLabel = "<kind>",
        description = "Only this kind: ${COMPLETION-CANDIDATES}.")
    DeadLetterKind kind;

    @Mixin DeadLetterFilter filter;

    @Option(
        names = "--limit",
        defaultValue = "50",
        paramLabel = "<n>",
        description = "At most this many rows (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    void validate() {
      if (limit < 1 || limit > 10_000) {
        throw usage("--limit must be 1..10000, was " + limit);
      }
    }

    @Override
    int run(Database db, Output out) throws Exception {
      DeadLetterQuery q =
          new DeadLetterQuery(
              group,
              statuses,
              reasons,
              kind,
              filter.eventType,
              filter.businessKey,
              filter.since == null || filter.since.ago() == null
                  ? null
                  : filter.since.ago().toMillis(),
              filter.since == null ? null : filter.since.at(),
              filter.until == null || filter.until.ago() == null
                  ? null
                  : filter.until.ago().toMillis(),
              filter.until == null ? null : filter.until.at(),
              limit);
      List<DeadLetterRow> rows = db.query((ops, c) -> ops.listDeadLetters(c, q));
      List<Map<String, Object>> maps = rows.stream().map(Output::map).toList();
      if (out.json()) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("rows", maps);
        doc.put("truncated", rows.size() == limit);
        out.json(doc);
      } else {
        out.table(
            maps,
            List.of(
                "consumer_group",
                "event_id",
                "kind",
                "status",
                "reason",
                "attempt",
                "event_type",
                "business_key",
                "created_at",
                "error_message"));
        out.writer()
            .println(
                "("
                    + rows.size()
                    + " rows"
                    + (rows.size() == limit ? "; more may match: raise --limit or narrow)" : ")"));
      }
      return TxmsgCli.OK;
    }
  }

  @Command(name = "show", description = "Show the dead letters of one group and event.")
  static final class Show extends DbCommand {
    @Parameters(index = "0", paramLabel = "<group>")
    String group;

    @Parameters(index = "1", paramLabel = "<eventId>")
    String eventId;

    @Option(names = "--show-payload", description = "Print the payload (hidden by default).")
    boolean showPayload;

    @Override
    int run(Database db, Output out) throws Exception {
      List<DeadLetterRow> rows = db.query((ops, c) -> ops.findDeadLetters(c, group, eventId));
      if (rows.isEmpty()) {
        err()
            .println(
                "txmsg: no dead letter for group "
                    + LogSafe.quote(group)
                    + " and event id "
                    + LogSafe.quote(eventId));
        return TxmsgCli.FINDINGS;
      }
      List<Map<String, Object>> maps =
          rows.stream().map(r -> Output.map(r, r.getPayload(), showPayload)).toList();
      if (out.json()) {
        out.json(maps);
      } else {
        for (int i = 0; i < maps.size(); i++) {
          if (i > 0) {
            out.writer().println();
          }
          out.record(maps.get(i));
        }
      }
      return TxmsgCli.OK;
    }
  }
}
