package io.txmsg.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;

/**
 * Short transactions of their own on the txmsg tables: take a connection, run one piece of mapper
 * work, commit; roll back when it throws. For everything that must NOT join the application's
 * transaction (check-back reads, confirmations, reconciler claims, settling after a failure).
 */
public final class StoreTransactions {
  /** Work on one mapper inside the short transaction. */
  @FunctionalInterface
  public interface Work<M, T> {
    T run(M mapper) throws Exception;
  }

  private final DataSource dataSource;
  private final TxmsgStore store;

  public StoreTransactions(DataSource dataSource, TxmsgStore store) {
    this.dataSource = dataSource;
    this.store = store;
  }

  /**
   * Runs {@code work} on a mapper of {@code mapperType} in a new transaction and commits it.
   *
   * @throws Exception what the work or the database threw; the transaction was rolled back
   */
  public <M, T> T run(Class<M> mapperType, Work<M, T> work) throws Exception {
    return inSession(session -> work.run(session.getMapper(mapperType)));
  }

  /** Like {@link #run} for work that spans several mappers in one short transaction. */
  public <T> T inSession(Work<SqlSession, T> work) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (SqlSession session = store.session(c)) {
        T result = work.run(session);
        c.commit();
        return result;
      } catch (Exception e) {
        try {
          c.rollback();
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        BrokenConnections.evictIfBroken(dataSource, c, e);
        throw e;
      }
    }
  }
}
