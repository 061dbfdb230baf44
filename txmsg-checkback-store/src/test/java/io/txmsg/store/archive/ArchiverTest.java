package io.txmsg.store.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Archiver API on every enabled database (the CLI tests cover retention and statuses). */
class ArchiverTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final Archiver.Audit AUDIT = new Archiver.Audit("alice", "disk at 80 %");

  /** Journal only, everything older than "now" (retention zero), no consume-log floor. */
  private static Archiver.Policy journalOnly(int batchSize) {
    return new Archiver.Policy(Duration.ZERO, null, null, Duration.ZERO, batchSize, false);
  }

  private static TxmsgStore fill(DatabaseFixture db, int sent, int pending) throws Exception {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
    StoreTransactions tx = new StoreTransactions(db.dataSource(), store);
    Journal journal = new Journal(db.dataSource(), store);
    List<String> sentIds = new ArrayList<>();
    tx.run(
        c -> {
          for (int i = 0; i < sent + pending; i++) {
            String id = "e" + i;
            journal.insert(c, StoreFixtures.journalRow(id), 60_000);
            if (i < sent) {
              sentIds.add(id);
            }
          }
          return null;
        });
    for (int i = 0; i < sentIds.size(); i += 500) {
      journal.markSent(sentIds.subList(i, Math.min(sentIds.size(), i + 500)));
    }
    Thread.sleep(20); // updated_at strictly before the archiver's "now"
    return store;
  }

  private static long count(DataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void movesSentRowsInBoundedBatchesAndReportsEach(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = fill(db, 250, 30);
      Archiver archiver = new Archiver(db.dataSource(), store);
      assertThat(archiver.countEligible(journalOnly(100)))
          .containsExactly(java.util.Map.entry(Archiver.Table.JOURNAL, 250L));

      List<Archiver.Batch> batches = new ArrayList<>();
      Archiver.Result result = archiver.run(journalOnly(100), AUDIT, batches::add);

      assertThat(batches).extracting(Archiver.Batch::rows).containsExactly(100, 100, 50);
      assertThat(batches).extracting(Archiver.Batch::tableRows).containsExactly(100L, 200L, 250L);
      assertThat(result.totalRows()).isEqualTo(250);
      assertThat(result.tables().get(0).rowsPerSecond()).isPositive();
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal")).isEqualTo(30);
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal WHERE status = 'SENT'"))
          .isZero();
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal_archive"))
          .isEqualTo(250);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  @Timeout(120)
  void concurrentArchiversMoveEveryRowExactlyOnce(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = fill(db, 1500, 0);
      List<Archiver.Batch> batches = new CopyOnWriteArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<Archiver.Result>> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          runs.add(
              pool.submit(
                  () ->
                      new Archiver(db.dataSource(), store)
                          .run(journalOnly(50), AUDIT, batches::add)));
        }
        long moved = 0;
        for (Future<Archiver.Result> r : runs) {
          moved += r.get(100, TimeUnit.SECONDS).totalRows();
        }
        assertThat(moved).isEqualTo(1500);
      } finally {
        pool.shutdownNow();
      }
      assertThat(batches.stream().mapToInt(Archiver.Batch::rows).sum()).isEqualTo(1500);
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal")).isZero();
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal_archive"))
          .isEqualTo(1500);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aFailedRunIsRecordedFailedWithTheRowsItsCommittedBatchesMoved(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = fill(db, 120, 0);
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        // The consume-log step cannot copy: the journal batches commit, then the run fails.
        s.execute("DROP TABLE txmsg_consume_log_archive");
      }
      Archiver archiver = new Archiver(db.dataSource(), store);
      Archiver.Policy both =
          new Archiver.Policy(Duration.ZERO, Duration.ZERO, null, Duration.ZERO, 50, false);
      ConsumeLog consumeLog = new ConsumeLog(db.dataSource(), store);
      boolean claimed =
          new StoreTransactions(db.dataSource(), store)
              .run(c -> consumeLog.claim(c, "g", "c1", "Paid", "h", 1));
      assertThat(claimed).isTrue();
      Thread.sleep(20);

      assertThatThrownBy(() -> archiver.run(both, AUDIT, b -> {}))
          .hasMessageContaining("consume_log_archive");

      List<ArchiveRunRow> runs = archiver.recentRuns(10);
      assertThat(runs).hasSize(1);
      ArchiveRunRow run = runs.get(0);
      assertThat(run.getStatus()).isEqualTo(Archiver.RunStatus.FAILED);
      assertThat(run.getOperator()).isEqualTo("alice");
      assertThat(run.getReason()).isEqualTo("disk at 80 %");
      assertThat(run.getJournalRows()).isEqualTo(120);
      assertThat(run.getConsumeLogRows()).isZero();
      assertThat(run.getErrorMessage()).containsIgnoringCase("consume_log_archive");
      assertThat(run.getFinishedAt()).isNotNull();
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal_archive"))
          .isEqualTo(120);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void nothingIsArchivedWhenTheRunCannotBeRecorded(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = fill(db, 10, 0);
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE txmsg_archive_run");
      }
      assertThatThrownBy(
              () -> new Archiver(db.dataSource(), store).run(journalOnly(50), AUDIT, b -> {}))
          .hasMessageContaining("archive_run");
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal")).isEqualTo(10);
      assertThat(count(db.dataSource(), "SELECT COUNT(*) FROM txmsg_journal_archive")).isZero();
    }
  }

  @Test
  @DatabaseIndependent
  void theAuditNamesTheFieldThatIsBlankOrTooLong() {
    assertThatThrownBy(() -> new Archiver.Audit(" ", "r"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("operator must not be blank");
    assertThatThrownBy(() -> new Archiver.Audit("a", null)).hasMessage("reason must not be blank");
    assertThatThrownBy(() -> new Archiver.Audit("a", "x".repeat(Archiver.MAX_REASON_LENGTH + 1)))
        .hasMessageStartingWith("reason is 513 characters long");
    assertThat(new Archiver.Audit(" bob ", " why ")).isEqualTo(new Archiver.Audit("bob", "why"));
  }

  @Test
  @DatabaseIndependent
  void policyRefusesAConsumeLogRetentionBelowTheReplayWindowAndBadBatchSizes() {
    assertThatThrownBy(() -> new Archiver.Policy(null, Duration.ofDays(1), null, null, 1000, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redelivery/replay window");
    assertThatThrownBy(() -> new Archiver.Policy(null, null, null, null, 0, false))
        .hasMessageContaining("batch size");
    assertThatThrownBy(
            () -> new Archiver.Policy(null, null, null, null, Archiver.MAX_BATCH_SIZE + 1, false))
        .hasMessageContaining("batch size");
    assertThat(
            new Archiver.Policy(null, Duration.ofDays(7), null, null, 1, true)
                .retention(Archiver.Table.CONSUME_LOG))
        .isEqualTo(Duration.ofDays(7));
  }
}
