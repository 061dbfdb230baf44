package io.txmsg.store.tx;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Local transactions on a plain DataSource: one connection, autocommit off, commit or roll back.
 * The work gets the connection as an observed view ({@link StatementFailures}).
 */
public final class JdbcLocalTransactions implements LocalTransactions {
  private static final Logger log = LoggerFactory.getLogger(JdbcLocalTransactions.class);

  private final DataSource dataSource;

  public JdbcLocalTransactions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public <T> T inTransaction(Work<T> work, int isolationLevel)
      throws WorkFailedException, CommitFailedException {
    Connection c;
    int previousIsolation;
    try {
      c = dataSource.getConnection();
    } catch (SQLException e) {
      throw new WorkFailedException(e);
    }
    try {
      // Only read it when asked for a level: PostgreSQL's driver answers getTransactionIsolation
      // with a SHOW round trip, one per transaction of the producer for nothing.
      previousIsolation =
          isolationLevel == DEFAULT_ISOLATION ? DEFAULT_ISOLATION : c.getTransactionIsolation();
      if (isolationLevel != DEFAULT_ISOLATION && isolationLevel != previousIsolation) {
        c.setTransactionIsolation(isolationLevel);
      }
    } catch (SQLException e) {
      closeQuietly(c);
      throw new WorkFailedException(e);
    }
    try {
      T result;
      try {
        c.setAutoCommit(false);
        // The work sees an observed view: failed statements it swallows are still seen.
        result = work.run(StatementFailures.observe(c));
      } catch (Exception | Error e) {
        rollbackQuietly(c, e);
        BrokenConnections.evictIfBroken(dataSource, c, e);
        throw new WorkFailedException(e);
      }
      try {
        c.commit();
      } catch (SQLException e) {
        BrokenConnections.evictIfBroken(dataSource, c, e);
        throw new CommitFailedException(e);
      }
      return result;
    } finally {
      try {
        if (isolationLevel != DEFAULT_ISOLATION && isolationLevel != previousIsolation) {
          c.setTransactionIsolation(previousIsolation); // pooled connections keep their settings
        }
      } catch (SQLException e) {
        log.warn("could not restore the isolation level: {}", e.toString());
      }
      closeQuietly(c);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // Closing returns the connection to the pool; the outcome is already decided.
      log.warn("connection close failed after the local transaction: {}", e.toString());
    }
  }

  private static void rollbackQuietly(Connection c, Throwable original) {
    try {
      c.rollback();
    } catch (SQLException e) {
      original.addSuppressed(e);
    }
  }

  @Override
  public boolean inActiveTransaction() {
    return false;
  }
}
