package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.archive.Archiver;
import io.txmsg.store.archive.Archiver.Table;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code txmsg archive}: moves terminal rows older than their table's retention to the {@code
 * *_archive} tables (or deletes them with {@code --delete}) through {@link Archiver}, printing
 * progress per batch. The only writing command, so it requires {@code --reason}; each run is
 * recorded in {@code <prefix>archive_run} ({@link ArchiveRunsCommand} lists them).
 */
@Command(
    name = "archive",
    description = {
      "Move terminal rows past their retention to the *_archive tables.",
      "Journal SENT and consume log SUCCESS/SKIPPED_STALE by updated_at,",
      "attempts by created_at; one transaction per batch. Never touches PENDING,",
      "SENDING, RETRY, DEAD or PARKED rows. --delete deletes instead of moving."
    })
final class ArchiveCommand extends DbCommand {
  @Option(
      names = "--journal-retention",
      defaultValue = "7d",
      paramLabel = "<duration>",
      converter = Durations.Converter.class,
      description = "Keep journal rows this long (default: ${DEFAULT-VALUE}).")
  Duration journalRetention;

  @Option(
      names = "--consume-log-retention",
      defaultValue = "14d",
      paramLabel = "<duration>",
      converter = Durations.Converter.class,
      description = "Keep consume-log rows this long (default: ${DEFAULT-VALUE}).")
  Duration consumeLogRetention;

  @Option(
      names = "--attempt-retention",
      defaultValue = "1d",
      paramLabel = "<duration>",
      converter = Durations.Converter.class,
      description =
          "Keep attempt rows this long; must exceed the broker's check window (default: ${DEFAULT-VALUE}).")
  Duration attemptRetention;

  @Option(
      names = "--min-consume-log-retention",
      defaultValue = "7d",
      paramLabel = "<duration>",
      converter = Durations.Converter.class,
      description =
          "The redelivery/replay window: a shorter --consume-log-retention is refused (default: ${DEFAULT-VALUE}).")
  Duration minConsumeLogRetention;

  @Option(
      names = "--tables",
      split = ",",
      paramLabel = "<table>",
      defaultValue = "journal,consume_log,attempt",
      converter = TableConverter.class,
      description = "Tables to archive (default: ${DEFAULT-VALUE}).")
  List<Table> tables;

  @Option(
      names = "--batch-size",
      defaultValue = "1000",
      paramLabel = "<n>",
      description =
          "Rows per transaction, 1.." + Archiver.MAX_BATCH_SIZE + " (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(names = "--dry-run", description = "Only count the rows that would be archived.")
  boolean dryRun;

  @Option(names = "--delete", description = "Delete the rows instead of moving them to *_archive.")
  boolean delete;

  @Option(
      names = "--reason",
      required = true,
      paramLabel = "<text>",
      description =
          "Why (required, at most "
              + Archiver.MAX_REASON_LENGTH
              + " characters; recorded with the operator in <prefix>archive_run).")
  String reason;

  @Option(
      names = "--operator",
      paramLabel = "<name>",
      description =
          "Who runs this (default: the OS user; at most "
              + Archiver.MAX_OPERATOR_LENGTH
              + " characters).")
  String operator = System.getProperty("user.name");

  private Archiver.Policy policy;
  private Archiver.Audit audit;

  /** Table names as operators type them: journal, consume_log (or consume-log), attempt. */
  static final class TableConverter implements ITypeConverter<Table> {
    @Override
    public Table convert(String value) {
      try {
        return Table.valueOf(value.strip().replace('-', '_').toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            "unknown table " + LogSafe.quote(value) + ": use journal, consume_log, attempt");
      }
    }
  }

  @Override
  void validate() {
    if (reason.isBlank()) {
      throw usage("--reason must not be blank");
    }
    try {
      audit = new Archiver.Audit(operator, reason);
    } catch (IllegalArgumentException e) {
      throw usage("--" + e.getMessage());
    }
    Set<Table> chosen = EnumSet.copyOf(tables);
    // Archiver.Policy refuses this too; checked here first for a message in the options' terms.
    if (chosen.contains(Table.CONSUME_LOG)
        && consumeLogRetention.compareTo(minConsumeLogRetention) < 0) {
      throw usage(
          "--consume-log-retention "
              + Durations.format(consumeLogRetention)
              + " is shorter than the redelivery/replay window (--min-consume-log-retention "
              + Durations.format(minConsumeLogRetention)
              + "): a redelivered or replayed event would no longer be recognised as a duplicate");
    }
    try {
      policy =
          new Archiver.Policy(
              chosen.contains(Table.JOURNAL) ? journalRetention : null,
              chosen.contains(Table.CONSUME_LOG) ? consumeLogRetention : null,
              chosen.contains(Table.ATTEMPT) ? attemptRetention : null,
              minConsumeLogRetention,
              batchSize,
              delete);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  @Override
  int run(Database db, Output out) throws Exception {
    Archiver archiver = new Archiver(db.dataSource(), db.store());
    // With --json stdout carries only the final document; progress goes to stderr.
    PrintWriter progress = out.json() ? err() : out.writer();
    progress.println(
        (dryRun
                ? "dry run (nothing changes)"
                : delete ? "archive: DELETE rows" : "archive: move rows")
            + " by "
            + operator
            + ", reason: "
            + Output.cell(reason, false));
    if (dryRun) {
      Map<Table, Long> counts = archiver.countEligible(policy);
      if (out.json()) {
        Map<String, Object> doc = header();
        Map<String, Long> eligible = new LinkedHashMap<>();
        counts.forEach((t, n) -> eligible.put(t.label(), n));
        doc.put("eligible", eligible);
        out.json(doc);
      } else {
        List<List<String>> rows = new ArrayList<>();
        counts.forEach(
            (t, n) ->
                rows.add(
                    List.of(t.label(), Durations.format(policy.retention(t)), Long.toString(n))));
        out.printAligned(List.of("TABLE", "RETENTION", "ELIGIBLE"), rows);
      }
      return TxmsgCli.OK;
    }
    Archiver.Result result =
        archiver.run(
            policy,
            audit,
            b -> {
              progress.printf(
                  Locale.ROOT,
                  "%-11s batch %d: %d rows (total %d, %.0f rows/s)%n",
                  b.table().label(),
                  b.number(),
                  b.rows(),
                  b.tableRows(),
                  b.rowsPerSecond());
              progress.flush();
            });
    if (out.json()) {
      Map<String, Object> doc = header();
      List<Map<String, Object>> tablesDoc = new ArrayList<>();
      for (Archiver.TableResult t : result.tables()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", t.table().label());
        m.put("rows", t.rows());
        m.put("millis", t.elapsed().toMillis());
        m.put("rows_per_second", Math.round(t.rowsPerSecond()));
        tablesDoc.add(m);
      }
      doc.put("run_id", result.runId());
      doc.put("tables", tablesDoc);
      doc.put("total_rows", result.totalRows());
      out.json(doc);
    } else {
      List<List<String>> rows = new ArrayList<>();
      for (Archiver.TableResult t : result.tables()) {
        rows.add(
            List.of(
                t.table().label(),
                Long.toString(t.rows()),
                String.format(Locale.ROOT, "%.2f", t.elapsed().toNanos() / 1e9),
                String.format(Locale.ROOT, "%.0f", t.rowsPerSecond())));
      }
      out.printAligned(
          List.of("TABLE", delete ? "DELETED" : "ARCHIVED", "SECONDS", "ROWS_PER_S"), rows);
      out.writer().println("recorded as run " + result.runId() + " (txmsg archive-runs)");
    }
    return TxmsgCli.OK;
  }

  private Map<String, Object> header() {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("dry_run", dryRun);
    doc.put("delete", delete);
    doc.put("operator", operator);
    doc.put("reason", reason);
    return doc;
  }
}
