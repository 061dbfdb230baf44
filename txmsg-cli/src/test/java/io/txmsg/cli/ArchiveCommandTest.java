package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code archive} (and through it {@link io.txmsg.store.archive.Archiver}) on every enabled
 * database.
 */
class ArchiveCommandTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final Duration OLD = Duration.ofDays(30);
  private static final Duration YOUNG = Duration.ofHours(1);

  @TempDir Path dir;

  /** Old terminal rows (archivable), old non-terminal rows and young terminal rows (kept). */
  private static void fill(OpsRows rows) throws Exception {
    rows.journal("sent-old", "SENT", "payment", "Paid", null, OLD);
    rows.journal("sent-old-3", "SENT", "payment", "Paid", null, OLD.plusHours(2));
    rows.journal("sent-old-2", "SENT", "payment", "Paid", null, OLD.plusHours(1));
    rows.journal("sent-young", "SENT", "payment", "Paid", null, YOUNG);
    for (String status : List.of("PENDING", "SENDING", "RETRY", "DEAD")) {
      rows.journal(status.toLowerCase() + "-old", status, "payment", "Paid", null, OLD);
    }
    rows.consumeLog("g", "success-old", "SUCCESS", OLD);
    rows.consumeLog("g", "stale-old", "SKIPPED_STALE", OLD);
    rows.consumeLog("h", "success-old", "SUCCESS", OLD);
    rows.consumeLog("g", "parked-old", "PARKED", OLD);
    rows.consumeLog("g", "success-young", "SUCCESS", YOUNG);
    rows.attempt("a-old", "sent-old", "COMMITTED", Duration.ofDays(2));
    rows.attempt("a-fenced-old", "x", "FENCED", Duration.ofDays(2));
    rows.attempt("a-young", "sent-young", "COMMITTED", YOUNG);
  }

  private static final String JOURNAL = "SELECT event_id FROM txmsg_journal ORDER BY event_id";
  private static final String JOURNAL_ARCHIVE =
      "SELECT event_id FROM txmsg_journal_archive ORDER BY event_id";
  private static final String CONSUME_LOG =
      "SELECT CONCAT(consumer_group, ':', event_id) FROM txmsg_consume_log ORDER BY 1";
  private static final String CONSUME_LOG_ARCHIVE =
      "SELECT CONCAT(consumer_group, ':', event_id) FROM txmsg_consume_log_archive ORDER BY 1";
  private static final String ATTEMPT = "SELECT attempt_id FROM txmsg_attempt ORDER BY attempt_id";
  private static final String ATTEMPT_ARCHIVE =
      "SELECT attempt_id FROM txmsg_attempt_archive ORDER BY attempt_id";

  private static final List<String> JOURNAL_KEPT =
      List.of("dead-old", "pending-old", "retry-old", "sending-old", "sent-young");
  private static final List<String> JOURNAL_MOVED = List.of("sent-old", "sent-old-2", "sent-old-3");
  private static final List<String> CONSUME_LOG_KEPT = List.of("g:parked-old", "g:success-young");
  private static final List<String> CONSUME_LOG_MOVED =
      List.of("g:stale-old", "g:success-old", "h:success-old");

  @ParameterizedTest
  @MethodSource(DB)
  void movesOnlyTerminalRowsPastTheRetentionInBatches(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      fill(rows);
      Cli cli = new Cli(db, dir);

      Cli.Run dry = cli.run("archive", "--reason", "INC-1 test", "--dry-run", "--json");
      assertThat(dry.exitCode()).as(dry.err()).isZero();
      JsonNode eligible = dry.json().get("eligible");
      assertThat(eligible.get("journal").asLong()).isEqualTo(3);
      assertThat(eligible.get("consume_log").asLong()).isEqualTo(3);
      assertThat(eligible.get("attempt").asLong()).isEqualTo(2);
      assertThat(rows.column(JOURNAL)).hasSize(8);
      assertThat(rows.column(JOURNAL_ARCHIVE)).isEmpty();

      Cli.Run run =
          cli.run(
              "archive",
              "--reason",
              "INC-1 test",
              "--operator",
              "bob",
              "--batch-size",
              "2",
              "--journal-retention",
              "7d",
              "--consume-log-retention",
              "14d",
              "--attempt-retention",
              "1d");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out())
          .contains("by bob", "INC-1 test")
          .contains("journal     batch 1: 2 rows (total 2,")
          .contains("journal     batch 2: 1 rows (total 3,")
          .contains("consume_log batch 2: 1 rows (total 3,")
          .contains("attempt     batch 1: 2 rows (total 2,")
          .contains("ROWS_PER_S");

      assertThat(rows.column(JOURNAL)).containsExactlyElementsOf(JOURNAL_KEPT);
      assertThat(rows.column(JOURNAL_ARCHIVE)).containsExactlyElementsOf(JOURNAL_MOVED);
      assertThat(rows.column(CONSUME_LOG)).containsExactlyElementsOf(CONSUME_LOG_KEPT);
      assertThat(rows.column(CONSUME_LOG_ARCHIVE)).containsExactlyElementsOf(CONSUME_LOG_MOVED);
      assertThat(rows.column(ATTEMPT)).containsExactly("a-young");
      assertThat(rows.column(ATTEMPT_ARCHIVE)).containsExactly("a-fenced-old", "a-old");
      // The archived copy is the whole row.
      assertThat(
              rows.column(
                  "SELECT CONCAT(status, '/', payload_hash) FROM txmsg_journal_archive"
                      + " WHERE event_id = 'sent-old'"))
          .containsExactly("SENT/" + OpsRows.HASH);

      Cli.Run again = cli.run("archive", "--reason", "INC-1 test", "--json");
      assertThat(again.exitCode()).isZero();
      assertThat(again.json().get("total_rows").asLong()).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void everyRunIsRecordedWithOperatorReasonAndCountsAndListedNewestFirst(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      fill(rows);
      Cli cli = new Cli(db, dir);

      assertThat(cli.run("archive", "--reason", "look first", "--dry-run").exitCode()).isZero();
      Cli.Run none = cli.run("archive-runs", "--json");
      assertThat(none.exitCode()).as(none.err()).isZero();
      assertThat(none.json().get("runs")).as("a dry run changes nothing").isEmpty();

      Cli.Run move =
          cli.run("archive", "--reason", "INC-7 disk at 80 %", "--operator", "bob", "--json");
      assertThat(move.exitCode()).as(move.err()).isZero();
      String moveId = move.json().get("run_id").asText();
      Thread.sleep(5); // started_at orders the runs (milliseconds)
      Cli.Run delete =
          cli.run("archive", "--reason", "young rows too", "--delete", "--journal-retention", "0s");
      assertThat(delete.exitCode()).as(delete.err()).isZero();
      assertThat(delete.out()).contains("recorded as run ");

      Cli.Run list = cli.run("archive-runs", "--json");
      assertThat(list.exitCode()).as(list.err()).isZero();
      JsonNode runs = list.json().get("runs");
      assertThat(runs).hasSize(2);
      JsonNode newest = runs.get(0);
      assertThat(newest.get("mode").asText()).isEqualTo("DELETE");
      assertThat(newest.get("status").asText()).isEqualTo("DONE");
      assertThat(newest.get("operator").asText()).isEqualTo(System.getProperty("user.name"));
      assertThat(newest.get("journal_rows").asLong()).as("sent-young").isEqualTo(1);
      JsonNode older = runs.get(1);
      assertThat(older.get("run_id").asText()).isEqualTo(moveId);
      assertThat(older.get("operator").asText()).isEqualTo("bob");
      assertThat(older.get("reason").asText()).isEqualTo("INC-7 disk at 80 %");
      assertThat(older.get("mode").asText()).isEqualTo("MOVE");
      assertThat(older.get("status").asText()).isEqualTo("DONE");
      assertThat(older.get("journal_rows").asLong()).isEqualTo(JOURNAL_MOVED.size());
      assertThat(older.get("consume_log_rows").asLong()).isEqualTo(CONSUME_LOG_MOVED.size());
      assertThat(older.get("attempt_rows").asLong()).isEqualTo(2);
      assertThat(older.get("finished_at").isNull()).isFalse();
      assertThat(older.get("error_message").isNull()).isTrue();

      Cli.Run text = cli.run("archive-runs", "--limit", "1");
      assertThat(text.exitCode()).as(text.err()).isZero();
      assertThat(text.out())
          .contains("RUN_ID", "OPERATOR", "JOURNAL_ROWS", "young rows too", "(1 runs)")
          .doesNotContain("bob");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void deleteModeDeletesWithoutArchivingAndDryRunChangesNothing(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      fill(rows);
      Cli cli = new Cli(db, dir);

      Cli.Run dry = cli.run("archive", "--reason", "r", "--delete", "--dry-run");
      assertThat(dry.exitCode()).isZero();
      assertThat(dry.out()).contains("dry run", "ELIGIBLE", "journal", "consume_log", "attempt");
      assertThat(rows.column(JOURNAL)).hasSize(8);
      assertThat(rows.column(ATTEMPT)).hasSize(3);

      Cli.Run run =
          cli.run("archive", "--reason", "r", "--delete", "--tables", "journal,attempt", "--json");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.json().get("total_rows").asLong()).isEqualTo(5);
      assertThat(rows.column(JOURNAL)).containsExactlyElementsOf(JOURNAL_KEPT);
      assertThat(rows.column(JOURNAL_ARCHIVE)).isEmpty();
      assertThat(rows.column(ATTEMPT)).containsExactly("a-young");
      assertThat(rows.column(ATTEMPT_ARCHIVE)).isEmpty();
      // consume_log was not selected: untouched.
      assertThat(rows.column(CONSUME_LOG)).hasSize(5);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void refusesAConsumeLogRetentionShorterThanTheReplayWindow(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      fill(rows);
      Cli cli = new Cli(db, dir);

      Cli.Run refused = cli.run("archive", "--reason", "r", "--consume-log-retention", "1d");
      assertThat(refused.exitCode()).isEqualTo(TxmsgCli.USAGE);
      assertThat(refused.err()).contains("shorter than the redelivery/replay window", "Usage:");
      assertThat(refused.err()).doesNotContain("\tat ", "Exception");
      assertThat(rows.column(CONSUME_LOG)).hasSize(5);
      assertThat(rows.column(JOURNAL)).hasSize(8);

      // A lower floor, said explicitly, is accepted.
      Cli.Run lowered =
          cli.run(
              "archive",
              "--reason",
              "r",
              "--tables",
              "consume_log",
              "--consume-log-retention",
              "1d",
              "--min-consume-log-retention",
              "1d");
      assertThat(lowered.exitCode()).as(lowered.err()).isZero();
      assertThat(rows.column(CONSUME_LOG)).containsExactlyElementsOf(CONSUME_LOG_KEPT);
    }
  }
}
