package io.txmsg.store.tx;

import java.sql.Connection;

/**
 * Runs the producer's local transaction and tells apart a failure of the work (rolled back) from a
 * failure of commit() (outcome unknown). Two implementations: plain JDBC over a DataSource, and
 * Spring's PlatformTransactionManager (so the application's MyBatis mappers join).
 */
public interface LocalTransactions {
  /** Work inside the transaction; the connection is borrowed. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws Exception;
  }

  /** The work threw; the transaction was rolled back (or never started). */
  final class WorkFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    public WorkFailedException(Throwable cause) {
      super(cause);
    }
  }

  /** commit() threw: the database may or may not have committed. */
  final class CommitFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    public CommitFailedException(Throwable cause) {
      super(cause);
    }
  }

  /** Isolation level meaning "the DataSource's default". */
  int DEFAULT_ISOLATION = -1;

  default <T> T inTransaction(Work<T> work) throws WorkFailedException, CommitFailedException {
    return inTransaction(work, DEFAULT_ISOLATION);
  }

  /**
   * Runs {@code work} in a new local transaction at {@code isolationLevel} (a {@link
   * Connection}{@code .TRANSACTION_*} constant, or {@link #DEFAULT_ISOLATION}); consumers use READ
   * COMMITTED so that the version guard and the dedup read see the latest committed rows.
   */
  <T> T inTransaction(Work<T> work, int isolationLevel)
      throws WorkFailedException, CommitFailedException;

  /** True when the calling thread already runs inside a transaction of this manager. */
  boolean inActiveTransaction();
}
