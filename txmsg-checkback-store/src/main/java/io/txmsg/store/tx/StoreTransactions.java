package io.txmsg.store.tx;

import io.txmsg.store.TxmsgStore;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;

/**
 * Short transactions of their own on the txmsg tables: take a connection, run one piece of work,
 * commit; roll back when it throws. For everything that must NOT join the application's transaction
 * (check-back reads, confirmations, reconciler claims, settling after a failure). The store's
 * operations run their statements in such a transaction when they are not handed the connection of
 * the caller's; a caller composes several operations in one with {@link #run(Work)}.
 */
public final class StoreTransactions {
  /** Work on the short transaction's connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws Exception;
  }

  /** Work on one mapper inside the short transaction (for the store's packages). */
  @FunctionalInterface
  public interface MapperWork<M, T> {
    T run(M mapper) throws Exception;
  }

  private final DataSource dataSource;
  private final TxmsgStore store;

  public StoreTransactions(DataSource dataSource, TxmsgStore store) {
    this.dataSource = dataSource;
    this.store = store;
  }

  public TxmsgStore store() {
    return store;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Runs {@code work} in a new transaction on a connection of its own and commits it.
   *
   * @throws Exception what the work or the database threw; the transaction was rolled back
   */
  public <T> T run(Work<T> work) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
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

  /**
   * Runs {@code work} on a mapper of {@code mapperType} in a new transaction and commits it.
   *
   * @throws Exception what the work or the database threw; the transaction was rolled back
   */
  public <M, T> T run(Class<M> mapperType, MapperWork<M, T> work) throws Exception {
    return run(
        c -> {
          try (SqlSession session = store.session(c)) {
            return work.run(session.getMapper(mapperType));
          }
        });
  }
}
