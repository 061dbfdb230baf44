package io.txmsg.rocketmq;

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

  <T> T inTransaction(Work<T> work) throws WorkFailedException, CommitFailedException;

  /** True when the calling thread already runs inside a transaction of this manager. */
  boolean inActiveTransaction();
}
