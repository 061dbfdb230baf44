package io.txmsg.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.journal.Journal;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.ibatis.executor.parameter.ParameterHandler;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.scripting.defaults.DefaultParameterHandler;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The periodic and time-bounded statements can use the index named for them in docs/facts.md
 * ("Indexes"), read from each database's own EXPLAIN of the statement MyBatis builds: on PostgreSQL
 * (sequential scans disabled for the check) the time bound must be an index condition, which a
 * VOLATILE clock such as clock_timestamp() never is; on MariaDB the index must be among the
 * possible keys; on H2 it must be the index chosen. On H2 the reconciler's candidate query is
 * checked for its status list, not its time bound: H2 uses no index under the OR of the time
 * bounds, so its statement adds the unsent statuses for the index to serve (docs/facts.md,
 * "Indexes").
 */
class IndexedQueriesTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /**
   * A named statement, its parameters, the index that serves it and the column it bounds; on H2 the
   * column the index must show, or null when H2 is not checked (see the class comment).
   */
  record Case(
      String statement, Map<String, Object> params, String index, String column, String h2Column) {
    Case(String statement, Map<String, Object> params, String index, String column) {
      this(statement, params, index, column, column);
    }

    /** This case as checked on {@code kind}, or null when it is not checked there. */
    Case on(TestDatabase kind) {
      if (kind != TestDatabase.H2) {
        return this;
      }
      return h2Column == null ? null : new Case(statement, params, index, h2Column, h2Column);
    }
  }

  private static final List<Case> CASES =
      List.of(
          new Case(
              "io.txmsg.store.journal.JournalMapper.selectDue",
              Map.of("storeId", "s1", "limit", 100),
              "txmsg_journal_due_ix",
              "next_retry_at",
              "status"),
          new Case(
              "io.txmsg.store.archive.ArchiveMapper.selectJournal",
              Map.of("retentionMillis", 60_000L, "limit", 500),
              "txmsg_journal_created_ix",
              "created_at",
              null),
          new Case(
              "io.txmsg.store.archive.ArchiveMapper.selectConsumeLog",
              Map.of("retentionMillis", 60_000L, "limit", 500),
              "txmsg_consume_log_status_ix",
              "updated_at"),
          new Case(
              "io.txmsg.store.archive.ArchiveMapper.selectAttempt",
              Map.of("retentionMillis", 60_000L, "limit", 500),
              "txmsg_attempt_created_ix",
              "created_at"),
          new Case(
              "io.txmsg.store.ops.OpsQueryMapper.unfinishedJournalCounts",
              Map.of(),
              "txmsg_journal_due_ix",
              "status"),
          new Case(
              "io.txmsg.store.ops.OpsQueryMapper.unsentJournalRows",
              Map.of("storeId", "default"),
              "txmsg_journal_due_ix",
              "status"));

  @ParameterizedTest
  @MethodSource(DB)
  void periodicAndTimeBoundedStatementsCanUseTheirIndexes(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
      TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
      fill(db, store);
      List<String> failures = new ArrayList<>();
      for (Case c : CASES.stream().map(c -> c.on(kind)).filter(c -> c != null).toList()) {
        String plan = explain(db, store, c);
        if (!servedBy(kind, plan, c)) {
          failures.add(c.statement() + " is not served by " + c.index() + ":\n" + plan);
        }
      }
      assertThat(failures).as("statements whose index cannot serve them").isEmpty();
      if (kind == TestDatabase.POSTGRESQL) {
        assertPlansWithoutJitForOneTransaction(db, store);
      }
    }
  }

  /**
   * The reconciler's claim transaction turns JIT off for itself only (TxmsgStore.planWithoutJit).
   */
  private static void assertPlansWithoutJitForOneTransaction(DatabaseFixture db, TxmsgStore store)
      throws Exception {
    StoreTransactions tx = new StoreTransactions(db.dataSource(), store);
    String before = tx.run(IndexedQueriesTest::showJit);
    String inside =
        tx.run(
            c -> {
              store.planWithoutJit(c);
              return showJit(c);
            });
    assertThat(before).isEqualTo("on");
    assertThat(inside).isEqualTo("off");
    String after = tx.run(IndexedQueriesTest::showJit);
    assertThat(after).as("after the transaction").isEqualTo("on");
  }

  private static String showJit(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW jit")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static boolean servedBy(TestDatabase kind, String plan, Case c) {
    String p = plan.toLowerCase(Locale.ROOT);
    switch (kind) {
      case POSTGRESQL:
        // The bound on the column appears in the index scan's condition, not only as a filter.
        return p.lines()
            .anyMatch(
                l ->
                    l.contains("index cond:") && l.contains("(" + c.column() + ")")
                        || l.contains("index cond:") && l.contains(c.column() + " "));
      case MARIADB:
        return p.contains(c.index());
      case H2:
        // The first access path is the statement's own table; later ones are its subqueries'
        // (the reconciler's FIFO checks read journal_due_ix too, whatever the outer table does).
        int at = p.indexOf("/* public.");
        return at >= 0
            && p.startsWith("/* public." + c.index() + ":", at)
            && p.substring(at, p.indexOf("*/", at)).contains(c.column());
      default:
        throw new IllegalStateException(kind.toString());
    }
  }

  private static String explain(DatabaseFixture db, TxmsgStore store, Case c) throws Exception {
    try (Connection conn = db.dataSource().getConnection()) {
      conn.setAutoCommit(false);
      try (SqlSession session = store.session(conn)) {
        Configuration config = session.getConfiguration();
        MappedStatement ms = config.getMappedStatement(c.statement());
        BoundSql bound = ms.getBoundSql(c.params());
        if (db.kind() == TestDatabase.POSTGRESQL) {
          try (Statement s = conn.createStatement()) {
            s.execute("SET LOCAL enable_seqscan = off");
          }
        }
        String prefix = db.kind() == TestDatabase.MARIADB ? "EXPLAIN EXTENDED " : "EXPLAIN ";
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement ps = conn.prepareStatement(prefix + bound.getSql())) {
          ParameterHandler params = new DefaultParameterHandler(ms, c.params(), bound);
          params.setParameters(ps);
          try (ResultSet rs = ps.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
              for (int i = 1; i <= columns; i++) {
                plan.append(rs.getMetaData().getColumnLabel(i))
                    .append('=')
                    .append(rs.getString(i))
                    .append(i < columns ? " | " : "\n");
              }
            }
          }
        }
        conn.rollback();
        return plan.toString();
      }
    }
  }

  /**
   * Rows in every status the statements look at, then the database's statistics, so that the
   * optimizers see tables worth an index.
   */
  private static void fill(DatabaseFixture db, TxmsgStore store) throws Exception {
    StoreTransactions tx = new StoreTransactions(db.dataSource(), store);
    Journal journal = new Journal(db.dataSource(), store);
    List<String> sent = new ArrayList<>();
    tx.run(
        c -> {
          for (int i = 0; i < 400; i++) {
            String id = "e" + i;
            journal.insert(c, StoreFixtures.journalRow(id), i % 4 == 0 ? 0 : 60_000);
            if (i % 2 == 0) {
              sent.add(id);
            }
          }
          return null;
        });
    journal.markSent(sent);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      for (int i = 0; i < 400; i++) {
        s.addBatch(
            "INSERT INTO txmsg_consume_log (consumer_group, event_id, request_hash, status)"
                + " VALUES ('g', 'e"
                + i
                + "', '"
                + "0".repeat(64)
                + "', '"
                + (i % 3 == 0 ? "PROCESSING" : "SUCCESS")
                + "')");
        s.addBatch(
            "INSERT INTO txmsg_attempt (attempt_id, event_id, store_id, state) VALUES ('a"
                + i
                + "', 'e"
                + i
                + "', 's1', 'COMMITTED')");
      }
      s.executeBatch();
      for (String table : List.of("journal", "consume_log", "attempt")) {
        s.execute(
            switch (db.kind()) {
              case POSTGRESQL -> "ANALYZE txmsg_" + table;
              case MARIADB -> "ANALYZE TABLE txmsg_" + table;
              case H2 -> "ANALYZE TABLE txmsg_" + table;
            });
      }
    }
  }
}
