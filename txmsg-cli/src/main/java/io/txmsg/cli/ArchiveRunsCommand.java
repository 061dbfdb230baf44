package io.txmsg.cli;

import io.txmsg.store.archive.ArchiveRunRow;
import io.txmsg.store.archive.Archiver;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code txmsg archive-runs}: the archive runs recorded in {@code <prefix>archive_run}, newest
 * first: who ran them, why, the mode, the rows each table gave up and how the run ended. A run
 * still RUNNING long after it started died (its counts are what its committed batches moved).
 */
@Command(
    name = "archive-runs",
    description = {
      "List the recorded archive runs, newest first: operator, reason, mode,",
      "rows per table, status (RUNNING, DONE, FAILED) and error. A run left",
      "RUNNING died; its counts are what its committed batches moved."
    })
final class ArchiveRunsCommand extends DbCommand {
  private static final List<String> COLUMNS =
      List.of(
          "run_id",
          "started_at",
          "finished_at",
          "status",
          "mode",
          "operator",
          "journal_rows",
          "consume_log_rows",
          "attempt_rows",
          "reason",
          "error_message");

  @Option(
      names = "--limit",
      defaultValue = "20",
      paramLabel = "<n>",
      description = "Runs to show, 1..1000 (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  void validate() {
    if (limit < 1 || limit > 1000) {
      throw usage("--limit must be 1..1000, was " + limit);
    }
  }

  @Override
  int run(Database db, Output out) throws Exception {
    List<ArchiveRunRow> runs = new Archiver(db.dataSource(), db.store()).recentRuns(limit);
    List<Map<String, Object>> rows = runs.stream().map(Output::map).toList();
    if (out.json()) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("runs", rows);
      out.json(doc);
    } else {
      out.table(rows, COLUMNS);
      out.writer().println("(" + runs.size() + " runs)");
    }
    return TxmsgCli.OK;
  }
}
