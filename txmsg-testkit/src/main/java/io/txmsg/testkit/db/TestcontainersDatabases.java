package io.txmsg.testkit.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * For users with a Docker engine: MySQL or PostgreSQL in a Testcontainers container instead of a
 * local service. Never the default; needs {@code org.testcontainers:mysql} or {@code
 * org.testcontainers:postgresql} on the test classpath (optional dependencies of the testkit). The
 * container is stopped when the fixture closes.
 */
public final class TestcontainersDatabases {
  private TestcontainersDatabases() {}

  /** Starts MySQL (image e.g. {@code mysql:8.4}). */
  public static DatabaseFixture mysql(String image) {
    return start(TestDatabase.MARIADB, new MySQLContainer<>(image));
  }

  /** Starts PostgreSQL (image e.g. {@code postgres:16}). */
  public static DatabaseFixture postgresql(String image) {
    return start(TestDatabase.POSTGRESQL, new PostgreSQLContainer<>(image));
  }

  private static DatabaseFixture start(TestDatabase kind, JdbcDatabaseContainer<?> container) {
    container.start();
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(container.getJdbcUrl());
    c.setUsername(container.getUsername());
    c.setPassword(container.getPassword());
    c.setMaximumPoolSize(12);
    return new DatabaseFixture(kind, new HikariDataSource(c), container::stop);
  }
}
