package io.txmsg.cdc;

import io.txmsg.store.Dialect;
import io.txmsg.store.cdc.CdcRelayMapper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * What differs between the databases whose log the relay reads: the checks at start, what to do
 * before the engine starts (resume or not, take a slot over), and Debezium's connector settings.
 */
abstract class LogSource {
  /**
   * Work on the mapper over a connection of the log account ({@link CdcSource}), so that the checks
   * see what Debezium will see.
   */
  @FunctionalInterface
  interface SourceWork<T> {
    T run(CdcRelayMapper m);
  }

  /** Renews the lease while {@link #prepare} waits; false when it was lost. */
  @FunctionalInterface
  interface KeepAlive {
    boolean renew();
  }

  static LogSource of(Dialect dialect) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresLog();
      case MYSQL -> new MariaDbLog();
      case H2 -> throw new IllegalArgumentException("H2 has no log the relay can read");
    };
  }

  /**
   * The start-time checks.
   *
   * @throws CdcSetupException naming what to set or run
   */
  abstract void check(RelayConfig config) throws Exception;

  /**
   * Before the engine starts under a fresh lease: restarts at the current position when the stored
   * one cannot be resumed (and says so), and frees what a stale holder still holds.
   */
  abstract void prepare(RelayConfig config, RelayRun run, KeepAlive keepAlive) throws Exception;

  /** Debezium's connector settings beyond the common ones ({@link CdcRelay}). */
  abstract void configure(RelayConfig config, Properties p);

  abstract String jdbcScheme();

  <T> T onSource(RelayConfig config, SourceWork<T> work) throws Exception {
    CdcSource s = config.source();
    String url = "jdbc:" + jdbcScheme() + "://" + s.host() + ":" + s.port() + "/" + s.database();
    Connection c;
    try {
      c = DriverManager.getConnection(url, s.user(), s.password());
    } catch (SQLException e) {
      throw new CdcSetupException(
          "the CDC relay cannot log in to " + s + " (" + e.getMessage() + ")", e);
    }
    try (c) {
      return config.store().on(c, CdcRelayMapper.class, work::run);
    }
  }

  /** An include-list entry (Debezium reads them as regular expressions) for one name. */
  static String literal(String name) {
    return name.replaceAll("([\\\\.\\[\\]{}()*+?^$|])", "\\\\$1");
  }
}
