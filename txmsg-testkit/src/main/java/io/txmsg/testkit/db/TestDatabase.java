package io.txmsg.testkit.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A kind of database the tests run on. {@link #open()} gives a fresh, empty database (H2: a new
 * in-memory database; MariaDB: a new database; PostgreSQL: a new schema) so every test starts with
 * a clean schema, and drops it on close.
 *
 * <p>MariaDB and PostgreSQL are the services of the build machine (127.0.0.1, root / trust, db
 * {@code test}); override with system properties {@code txmsg.test.mariadb.url}, {@code .user},
 * {@code .password} and {@code txmsg.test.postgresql.*}. An unreachable database makes {@link
 * #open()} throw: a test is never skipped for it.
 */
public enum TestDatabase {
  H2,
  MARIADB,
  POSTGRESQL;

  /** Opens a fresh database of this kind. */
  public DatabaseFixture open() {
    String name = "txmsg_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    try {
      switch (this) {
        case H2:
          // WRITE_DELAY is irrelevant in memory; file databases must use WRITE_DELAY=0.
          return new DatabaseFixture(
              this, pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", ""), () -> {});
        case MARIADB:
          {
            String admin = prop("mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test");
            String user = prop("mariadb.user", "root");
            String password = prop("mariadb.password", "");
            exec(admin, user, password, "CREATE DATABASE " + name);
            String url = admin.substring(0, admin.lastIndexOf('/') + 1) + name;
            return new DatabaseFixture(
                this,
                pool(url, user, password),
                () -> exec(admin, user, password, "DROP DATABASE IF EXISTS " + name));
          }
        case POSTGRESQL:
          {
            String admin = prop("postgresql.url", "jdbc:postgresql://127.0.0.1:5432/test");
            String user = prop("postgresql.user", "postgres");
            String password = prop("postgresql.password", "");
            exec(admin, user, password, "CREATE SCHEMA " + name);
            String url = admin + (admin.contains("?") ? "&" : "?") + "currentSchema=" + name;
            return new DatabaseFixture(
                this,
                pool(url, user, password),
                () -> exec(admin, user, password, "DROP SCHEMA IF EXISTS " + name + " CASCADE"));
          }
        default:
          throw new IllegalStateException(name());
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "test database "
              + this
              + " is not reachable ("
              + e.getMessage()
              + "); under -Pdatabases it must be running (see .ci/run)",
          e);
    }
  }

  /** The lower-case name used in the {@code txmsg.test.databases} property. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  private static String prop(String key, String def) {
    return System.getProperty("txmsg.test." + key, def);
  }

  private static HikariDataSource pool(String url, String user, String password) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(12);
    c.setMinimumIdle(0);
    c.setConnectionTimeout(10_000);
    c.setPoolName("txmsg-test-" + url.substring(url.lastIndexOf('/') + 1));
    return new HikariDataSource(c);
  }

  private static void exec(String url, String user, String password, String sql)
      throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, password);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
