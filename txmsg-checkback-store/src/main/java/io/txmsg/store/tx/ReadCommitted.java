package io.txmsg.store.tx;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The isolation level to ask {@link LocalTransactions} for so that a transaction runs at READ
 * COMMITTED, as the consumer's claim transaction must (docs/architecture.md, consumer step 6).
 * Asking for it explicitly costs a round trip per transaction on most drivers (PostgreSQL's reads
 * it with {@code SHOW}; a level that differs is set and then restored), so when the pool's
 * connections already start at READ COMMITTED (H2's and PostgreSQL's default) the transaction asks
 * for the pool's default instead. Read once, from one pooled connection, when the consumers start;
 * pools reset a connection's isolation when it comes back (HikariCP does, and Spring's transaction
 * manager restores what it changed), so one connection speaks for all. MariaDB/MySQL default to
 * REPEATABLE READ: there the level is set per transaction, unless the pool is configured for READ
 * COMMITTED (e.g. HikariCP's {@code transactionIsolation}).
 */
public final class ReadCommitted {
  private static final Logger log = LoggerFactory.getLogger(ReadCommitted.class);

  private ReadCommitted() {}

  /**
   * {@link LocalTransactions#DEFAULT_ISOLATION} when the pool's connections start at READ
   * COMMITTED, else {@link Connection#TRANSACTION_READ_COMMITTED} (also when the pool cannot be
   * read now: one round trip more per transaction, never a weaker level).
   */
  public static int isolationFor(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      int level = c.getTransactionIsolation();
      if (level == Connection.TRANSACTION_READ_COMMITTED) {
        log.debug("pool connections start at READ COMMITTED: the claim transaction keeps it");
        return LocalTransactions.DEFAULT_ISOLATION;
      }
      log.info(
          "pool connections start at isolation level {}, not READ COMMITTED: each claim"
              + " transaction sets READ COMMITTED and restores it (configure the pool for READ"
              + " COMMITTED to save the round trips)",
          level);
      return Connection.TRANSACTION_READ_COMMITTED;
    } catch (SQLException | RuntimeException e) {
      log.info(
          "could not read the pool's isolation level ({}): each claim transaction sets READ"
              + " COMMITTED",
          e.toString());
      return Connection.TRANSACTION_READ_COMMITTED;
    }
  }
}
