package io.txmsg.testkit.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Cleans up after CDC tests on PostgreSQL: replication slots and publications outlive the test's
 * schema, and an abandoned slot keeps WAL on the server's disk forever.
 */
public final class ReplicationSlots {
  private ReplicationSlots() {}

  /**
   * Drops {@code slot} once no walsender reads it (waits up to 30 s for the relay that closed to
   * let go), and every inactive slot and every publication whose name starts with {@code prefix}
   * (what earlier, killed runs left behind). Connects as {@code postgres} to the database of {@code
   * jdbcUrl} (publications are per database).
   *
   * @throws IllegalArgumentException when {@code slot} does not start with {@code prefix}: only a
   *     test's own names are dropped
   */
  public static void dropTestSlotsAndPublications(String jdbcUrl, String prefix, String slot)
      throws SQLException, InterruptedException {
    if (prefix.length() < 8 || !slot.startsWith(prefix)) {
      throw new IllegalArgumentException(slot + " is not a test slot named " + prefix + "...");
    }
    String url = jdbcUrl.contains("?") ? jdbcUrl.substring(0, jdbcUrl.indexOf('?')) : jdbcUrl;
    String user = System.getProperty("txmsg.test.postgresql.user", "postgres");
    String password = System.getProperty("txmsg.test.postgresql.password", "");
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"
                    + slot
                    + "' AND active")) {
          rs.next();
          if (rs.getInt(1) == 0) {
            break;
          }
        }
        Thread.sleep(200);
      }
      for (String name :
          names(
              s,
              "SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE '"
                  + prefix
                  + "%' AND NOT active")) {
        s.execute("SELECT pg_drop_replication_slot('" + name + "')");
      }
      for (String name :
          names(s, "SELECT pubname FROM pg_publication WHERE pubname LIKE '" + prefix + "%'")) {
        s.execute("DROP PUBLICATION IF EXISTS " + name);
      }
    }
  }

  private static List<String> names(Statement s, String query) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
