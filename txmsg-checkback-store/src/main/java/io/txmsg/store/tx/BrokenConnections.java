package io.txmsg.store.tx;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a connection out of its pool after a failure left it unusable.
 *
 * <p>Why: HikariCP evicts a connection by itself only for SQLState class 08 and a few vendor codes,
 * and validates a pooled connection on borrow only when it sat idle for more than 500 ms. H2
 * reports a broken or killed session with its own codes (90067 "connection is broken", 90121
 * "database is already closed"), so after a database outage a consumer whose retries came faster
 * than that got the same dead connection back again and again, and parked events it could have
 * applied (the reliability suite's H2 outage test). MariaDB and PostgreSQL report class 08 or
 * 57P01, which Hikari already evicts; checking costs one validation round trip, on failures only.
 */
final class BrokenConnections {
  private static final Logger log = LoggerFactory.getLogger(BrokenConnections.class);

  private static final boolean HIKARI_PRESENT = present("com.zaxxer.hikari.HikariDataSource");

  private BrokenConnections() {}

  /**
   * After {@code failure} on {@code c} (a connection of {@code dataSource}, not yet closed): if the
   * failure involved the database and the connection no longer validates, evicts it from the pool
   * (HikariCP) or aborts it (other pools then drop it as closed). Never throws.
   */
  static void evictIfBroken(DataSource dataSource, Connection c, Throwable failure) {
    if (!involvesSql(failure)) {
      return; // a business exception: the connection is fine
    }
    try {
      if (c.isValid(2)) {
        return;
      }
    } catch (SQLException | RuntimeException e) {
      // treated as broken
    }
    log.info("dropping a broken database connection from the pool: {}", failure.toString());
    try {
      if (HIKARI_PRESENT && Hikari.evict(dataSource, c)) {
        return;
      }
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      log.debug("could not drop the broken connection: {}", e.toString());
    }
  }

  private static boolean involvesSql(Throwable t) {
    for (int depth = 0; t != null && depth < 10; t = t.getCause(), depth++) {
      if (t instanceof SQLException) {
        return true;
      }
    }
    return false;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, BrokenConnections.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only when HikariCP is on the class path. */
  private static final class Hikari {
    static boolean evict(DataSource dataSource, Connection c) throws SQLException {
      HikariDataSource hikari;
      if (dataSource instanceof HikariDataSource h) {
        hikari = h;
      } else if (dataSource.isWrapperFor(HikariDataSource.class)) {
        hikari = dataSource.unwrap(HikariDataSource.class);
      } else {
        return false;
      }
      hikari.evictConnection(c); // in use: closed when it is returned
      return true;
    }
  }
}
