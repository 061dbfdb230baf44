package io.txmsg.store.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.testkit.db.DatabaseIndependent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A session killed by the database must not come back from the pool (H2: no SQLState 08). */
@DatabaseIndependent
class BrokenConnectionsTest {

  @Test
  void aKilledSessionIsEvictedSoTheNextBorrowGetsAWorkingConnection() throws Exception {
    String url = "jdbc:h2:mem:broken-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    try (HikariDataSource pool = poolOfOne(url);
        Connection admin = DriverManager.getConnection(url, "sa", "")) {
      int killed;
      try (Connection c = pool.getConnection()) {
        killed = sessionId(c);
        try (Statement s = admin.createStatement()) {
          s.execute("CALL ABORT_SESSION(" + killed + ")");
        }
        SQLException failure = null;
        try {
          sessionId(c);
        } catch (SQLException e) {
          failure = e;
        }
        assertThat((Throwable) failure).as("the killed session fails").isNotNull();
        BrokenConnections.evictIfBroken(pool, c, failure);
      }
      // Borrowed again at once, inside Hikari's 500 ms window without validation.
      try (Connection again = pool.getConnection()) {
        assertThat(sessionId(again)).isNotEqualTo(killed);
      }
    }
  }

  @Test
  void aBusinessFailureLeavesTheConnectionInThePool() throws Exception {
    String url = "jdbc:h2:mem:healthy-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    try (HikariDataSource pool = poolOfOne(url)) {
      int first;
      try (Connection c = pool.getConnection()) {
        first = sessionId(c);
        BrokenConnections.evictIfBroken(pool, c, new IllegalStateException("rejected"));
        assertThatThrownBy(() -> c.createStatement().execute("SELECT * FROM missing_table"))
            .isInstanceOf(SQLException.class)
            .satisfies(e -> BrokenConnections.evictIfBroken(pool, c, e));
      }
      try (Connection again = pool.getConnection()) {
        assertThat(sessionId(again)).as("same healthy session reused").isEqualTo(first);
      }
    }
  }

  private static HikariDataSource poolOfOne(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("sa");
    config.setPassword("");
    config.setMaximumPoolSize(1);
    return new HikariDataSource(config);
  }

  private static int sessionId(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT SESSION_ID()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
