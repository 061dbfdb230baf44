package io.txmsg.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When the connection-level detector may stand in for a self-check statement ({@link
 * StatementFailures#provedClean()}): only for a connection that carries the whole transaction, and
 * only when nothing failed or a savepoint rollback recovered it; never after an ignored failure.
 */
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
}
