package io.txmsg.testkit.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * H2's own count of the statements it executed ({@code INFORMATION_SCHEMA.QUERY_STATISTICS}), for
 * tests that assert how many round trips a code path costs on a real database rather than on a
 * mock. H2 only.
 */
public final class H2QueryStatistics {
  private H2QueryStatistics() {}

  /** Starts counting (from zero) for the whole database. */
  public static void start(DataSource h2) throws SQLException {
    try (Connection c = h2.getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET QUERY_STATISTICS TRUE");
    }
  }

  /**
   * Executions since {@link #start} of the statements whose text starts with {@code prefix},
   * compared upper-case with runs of whitespace as one space (e.g. {@code "UPDATE
   * TXMSG_CONSUME_LOG"}).
   */
  public static long executions(DataSource h2, String prefix) throws SQLException {
    String wanted = prefix.toUpperCase(Locale.ROOT);
    long n = 0;
    try (Connection c = h2.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT SQL_STATEMENT, EXECUTION_COUNT FROM INFORMATION_SCHEMA.QUERY_STATISTICS")) {
      while (rs.next()) {
        String sql = rs.getString(1).strip().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
        if (sql.startsWith(wanted)) {
          n += rs.getLong(2);
        }
      }
    }
    return n;
  }
}
