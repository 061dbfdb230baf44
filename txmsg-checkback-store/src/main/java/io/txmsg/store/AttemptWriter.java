package io.txmsg.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;

/**
 * Writes an attempt row in its OWN short transaction with a bounded lock wait: the check-back's
 * fence (FENCED) and the producer's settlement after a failure (ROLLED_BACK).
 *
 * <p>The primary key is the fence: if the attempt's local transaction is still running it holds the
 * key, this insert waits and times out ({@link AttemptInsert.Outcome#LOCKED}: the caller must
 * answer UNKNOWN, never ROLLBACK); if it committed, the insert fails with a duplicate key and the
 * committed state is read in a fresh transaction; if it never ran, the insert wins and the attempt
 * can never commit, because its own insert would now conflict.
 *
 * <p>Per dialect (docs/architecture.md#db-pg-lock-timeout-aborts, #db-mariadb-lock-wait-seconds,
 * #db-h2-lock-timeout-session): PostgreSQL aborts the whole transaction on lock timeout, hence the
 * dedicated transaction with {@code SET LOCAL lock_timeout}; MariaDB bounds sub-second waits with
 * {@code SET STATEMENT max_statement_time}; H2 uses the session's LOCK_TIMEOUT, restored after.
 */
public final class AttemptWriter {
  private final DataSource dataSource;
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public AttemptWriter(DataSource dataSource, TxmsgStore store) {
    this.dataSource = dataSource;
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /**
   * @throws SQLException for any failure other than a duplicate key or a lock timeout (the caller
   *     treats it as "outcome unknown")
   */
  public AttemptInsert insert(
      String attemptId, String eventId, String storeId, AttemptState state, Duration lockWait)
      throws SQLException {
    long ms = Math.max(1, lockWait.toMillis());
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (SqlSession session = store.session(c)) {
        AttemptMapper m = session.getMapper(AttemptMapper.class);
        Long previousH2Timeout = null;
        try {
          if (store.dialect() == Dialect.H2) {
            previousH2Timeout = m.currentLockTimeout();
            m.setLockTimeout(ms);
          } else if (store.dialect() == Dialect.POSTGRESQL) {
            m.setLockTimeout(ms);
          }
          m.insertWithLockWait(attemptId, eventId, storeId, state.name(), ms, ms / 1000.0);
          c.commit();
          return AttemptInsert.inserted();
        } catch (RuntimeException e) {
          c.rollback();
          if (SqlStates.isDuplicateKey(e)) {
            // A fresh transaction: PostgreSQL aborted the old one, and a MariaDB REPEATABLE READ
            // snapshot could hide the winner.
            String found = m.selectState(attemptId);
            c.commit();
            return AttemptInsert.exists(found == null ? null : AttemptState.valueOf(found));
          }
          if (SqlStates.isLockTimeout(e)) {
            return AttemptInsert.locked();
          }
          SQLException sql = SqlStates.find(e);
          throw sql != null ? sql : new SQLException("attempt insert failed: " + e, e);
        } finally {
          if (previousH2Timeout != null) {
            m.setLockTimeout(previousH2Timeout);
            c.commit();
          }
        }
      }
    }
  }

  /** Reads an attempt's state in a short transaction of its own; null when there is no row. */
  public AttemptState read(String attemptId) throws Exception {
    String s = transactions.run(AttemptMapper.class, m -> m.selectState(attemptId));
    return s == null ? null : AttemptState.valueOf(s);
  }
}
