package io.txmsg.store.tx;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.DatabaseIndependent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When the connection-level detector may stand in for a self-check statement ({@link
 * StatementFailures#provedClean()}): only for a connection that carries the whole transaction, and
 * only when nothing failed or a savepoint rollback recovered it; never after an ignored failure.
 */
@DatabaseIndependent
class StatementFailuresTest {
  private Connection raw;

  @BeforeEach
  void open() throws SQLException {
    raw = DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "");
    raw.setAutoCommit(false);
    try (Statement s = raw.createStatement()) {
      s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
    }
  }

  @AfterEach
  void close() throws SQLException {
    raw.close();
  }

  private static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void swallow(Connection c, String sql) {
    try {
      run(c, sql);
    } catch (SQLException expected) {
      // the handler "catches and continues"
    }
  }

  @Test
  void aCleanWindowIsProvedClean() throws SQLException {
    Connection c = StatementFailures.observe(raw);
    StatementFailures f = StatementFailures.of(c);
    assertThat(f.provedClean()).as("nothing watched yet").isFalse();
    f.watch();
    run(c, "INSERT INTO t VALUES (1)");
    assertThat(f.provedClean()).as("still watching").isFalse();
    assertThat((Throwable) f.stop()).isNull();
    assertThat(f.provedClean()).isTrue();
  }

  @Test
  void aFailureRecoveredByASavepointRollbackIsClean() throws SQLException {
    Connection c = StatementFailures.observe(raw);
    StatementFailures f = StatementFailures.of(c);
    f.watch();
    Savepoint sp = c.setSavepoint();
    swallow(c, "SELECT * FROM missing");
    c.rollback(sp);
    assertThat((Throwable) f.stop()).isNull();
    assertThat(f.provedClean()).isTrue();
  }

  @Test
  void anIgnoredFailureIsNotReportedButNotCleanEither() throws SQLException {
    Connection c = StatementFailures.observe(raw);
    StatementFailures f = StatementFailures.of(c);
    f.watch();
    f.ignore("23");
    run(c, "INSERT INTO t VALUES (1)");
    swallow(c, "INSERT INTO t VALUES (1)");
    assertThat((Throwable) f.stop()).as("ignored: not the caller's failure").isNull();
    assertThat(f.provedClean()).as("PostgreSQL would have aborted the transaction").isFalse();
  }

  @Test
  void aFailureIsReportedAndNotClean() throws SQLException {
    Connection c = StatementFailures.observe(raw);
    StatementFailures f = StatementFailures.of(c);
    f.watch();
    swallow(c, "SELECT * FROM missing");
    assertThat((Throwable) f.stop()).isNotNull();
    assertThat(f.provedClean()).isFalse();
  }

  @Test
  void aDetectorThatSeesOnlyItsOwnStatementsNeverProvesClean() throws SQLException {
    Connection c = StatementFailures.observeOwnStatementsOnly(raw);
    StatementFailures f = StatementFailures.of(c);
    assertThat(f.observing()).isTrue();
    f.watch();
    run(c, "INSERT INTO t VALUES (1)");
    assertThat((Throwable) f.stop()).isNull();
    assertThat(f.provedClean()).isFalse();
  }

  @Test
  void anUnobservedConnectionNeverProvesClean() throws SQLException {
    StatementFailures f = StatementFailures.of(raw);
    assertThat(f.observing()).isFalse();
    f.watch();
    assertThat((Throwable) f.stop()).isNull();
    assertThat(f.provedClean()).isFalse();
  }

  @Test
  void anExplicitEndOfTheTransactionIsNeverProvedClean() throws SQLException {
    // A swallowed ROLLBACK raises nothing, yet discards every row written so far: only the
    // self-check can tell, so it must run.
    for (String how : List.of("statement", "prepared", "jdbc-rollback", "jdbc-commit")) {
      Connection c = StatementFailures.observe(raw);
      StatementFailures f = StatementFailures.of(c);
      f.watch();
      run(c, "INSERT INTO t VALUES (1)");
      switch (how) {
        case "statement" -> run(c, "ROLLBACK");
        case "prepared" -> {
          try (PreparedStatement p = c.prepareStatement("  /* undo */ rollback")) {
            p.execute();
          }
        }
        case "jdbc-rollback" -> c.rollback();
        default -> c.commit();
      }
      assertThat((Throwable) f.stop()).as(how).isNull();
      assertThat(f.provedClean()).as(how).isFalse();
      raw.rollback();
    }
  }

  @Test
  void statementsThatMayCommitImplicitlyOrBypassTheDetectorAreNeverProvedClean()
      throws SQLException {
    Connection c = StatementFailures.observe(raw);
    StatementFailures f = StatementFailures.of(c);
    f.watch();
    run(c, "CREATE TABLE u (id INT)"); // DDL commits implicitly on MariaDB/MySQL
    assertThat((Throwable) f.stop()).isNull();
    assertThat(f.provedClean()).isFalse();

    f.watch();
    c.unwrap(Connection.class); // statements on the raw connection would not be seen
    f.stop();
    assertThat(f.provedClean()).isFalse();
  }

  @Test
  void onlyStatementsThatStayInTheTransactionCountAsSuch() {
    assertThat(StatementFailures.endsOrLeavesTransaction("SELECT 1")).isFalse();
    assertThat(StatementFailures.endsOrLeavesTransaction("\n  -- note\n /* x */ (select 1)"))
        .isFalse();
    assertThat(StatementFailures.endsOrLeavesTransaction("insert into t values (1)")).isFalse();
    assertThat(StatementFailures.endsOrLeavesTransaction("WITH a AS (SELECT 1) SELECT * FROM a"))
        .isFalse();
    assertThat(StatementFailures.endsOrLeavesTransaction("UPDATE t SET id = 2")).isFalse();
    assertThat(StatementFailures.endsOrLeavesTransaction("MERGE INTO t KEY (id) VALUES (1)"))
        .isFalse();
    for (String sql :
        List.of(
            "COMMIT",
            "rollback",
            "END",
            "ABORT",
            "BEGIN",
            "START TRANSACTION",
            "SET autocommit = 1",
            "CALL p()",
            "{call p()}",
            "TRUNCATE TABLE t",
            "LOCK TABLES t WRITE",
            "SAVEPOINT a",
            "",
            "/* unterminated")) {
      assertThat(StatementFailures.endsOrLeavesTransaction(sql)).as(sql).isTrue();
    }
    assertThat(StatementFailures.endsOrLeavesTransaction(null)).isTrue();
  }
}
