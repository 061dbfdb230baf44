package io.txmsg.store.journal;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;

/**
 * The attempt table: the fence of the half-message protocol (docs/architecture.md, "The path of one
 * event"). Two kinds of operations, each separately callable:
 *
 * <ul>
 *   <li>on the connection of the caller's local transaction: the attempt's own COMMITTED row (the
 *       fence point, {@link #insertCommitted}) and, as the transaction's last statement, the
 *       self-check that locks and reads it back ({@link #lockState});
 *   <li>in a short transaction of their own: {@link #insert} with a bounded lock wait (the
 *       check-back's FENCED, the producer's ROLLED_BACK after a failure) and {@link #read}.
 * </ul>
 *
 * <p>For {@link #insert} the primary key is the fence: if the attempt's local transaction is still
 * running it holds the key, the insert waits and times out ({@link AttemptInsert.Outcome#LOCKED}:
 * the caller must answer UNKNOWN, never ROLLBACK); if it committed, the insert fails with a
 * duplicate key and the committed state is read in a fresh transaction; if it never ran, the insert
 * wins and the attempt can never commit, because its own insert would now conflict. How the wait is
 * bounded is the {@link Dialect}'s business ({@code SET LOCAL lock_timeout} on PostgreSQL, which
 * aborts the whole transaction on a lock timeout, hence the dedicated transaction; {@code SET
 * STATEMENT max_statement_time} on MariaDB; the session's LOCK_TIMEOUT, restored after, on H2).
 *
 * <p>The statements on a caller's connection throw what MyBatis wraps the driver's SQLException in
 * (an unchecked exception; {@link SqlStates} finds the SQLException in its chain).
 */
public final class Attempts {
  private final DataSource dataSource;
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public Attempts(DataSource dataSource, TxmsgStore store) {
    this.dataSource = dataSource;
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /**
   * The attempt's COMMITTED row, the first statement of its local transaction (the fence point:
   * visible only once that transaction commits). A duplicate key means a check-back fenced this
   * attempt first.
   */
  public void insertCommitted(Connection c, String attemptId, String eventId, String storeId) {
    store.on(
        c, AttemptMapper.class, m -> m.insert(attemptId, eventId, storeId, AttemptState.COMMITTED));
  }

  /**
   * On the caller's transaction: this attempt's own row, inserted COMMITTED by that transaction,
   * becomes ROLLED_BACK (a joined publish whose eventId was already committed: the caller may still
   * commit the rest of its transaction, and the check-back then answers ROLLBACK). Returns the rows
   * changed (1, or 0 when the row is not this transaction's COMMITTED row).
   */
  public int markRolledBack(Connection c, String attemptId) {
    return store.on(c, AttemptMapper.class, m -> m.markRolledBack(attemptId));
  }

  /**
   * The pre-commit self-check on the caller's transaction: locks and reads this attempt's own row
   * ({@code SELECT ... FOR UPDATE}). Null when the database discarded the transaction (MariaDB
   * after a deadlock: the row is gone); throws on PostgreSQL's aborted transaction (25P02).
   */
  public AttemptState lockState(Connection c, String attemptId) {
    return store.on(c, AttemptMapper.class, m -> m.selectStateForUpdate(attemptId));
  }

  /**
   * Inserts an attempt row in its own short transaction with a lock wait bounded by {@code
   * lockWait}.
   *
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
        Dialect.LockWait toRestore = null;
        try {
          toRestore = store.boundLockWait(c, ms);
          m.insertWithLockWait(attemptId, eventId, storeId, state, ms, ms / 1000.0);
          c.commit();
          return AttemptInsert.inserted();
        } catch (RuntimeException e) {
          c.rollback();
          if (SqlStates.isDuplicateKey(e)) {
            // A fresh transaction: PostgreSQL aborted the old one, and a MariaDB REPEATABLE READ
            // snapshot could hide the winner.
            AttemptState found = m.selectState(attemptId);
            c.commit();
            return AttemptInsert.exists(found);
          }
          if (SqlStates.isLockTimeout(e)) {
            return AttemptInsert.locked();
          }
          SQLException sql = SqlStates.find(e);
          throw sql != null ? sql : new SQLException("attempt insert failed: " + e, e);
        } finally {
          if (toRestore != null) {
            toRestore.restore();
            c.commit();
          }
        }
      }
    }
  }

  /** Reads an attempt's state in a short transaction of its own; null when there is no row. */
  public AttemptState read(String attemptId) throws Exception {
    return transactions.run(AttemptMapper.class, m -> m.selectState(attemptId));
  }
}
