package io.txmsg.testkit.db;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One fresh test database: a pooled DataSource, dropped on {@link #close()}. */
public final class DatabaseFixture implements AutoCloseable {
  /** Drops what {@link TestDatabase#open()} created. */
  @FunctionalInterface
  interface Dropper {
    void drop() throws SQLException;
  }

  private final TestDatabase kind;
  private final HikariDataSource dataSource;
  private final Dropper dropper;

  DatabaseFixture(TestDatabase kind, HikariDataSource dataSource, Dropper dropper) {
    this.kind = kind;
    this.dataSource = dataSource;
    this.dropper = dropper;
  }

  public TestDatabase kind() {
    return kind;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public String jdbcUrl() {
    return dataSource.getJdbcUrl();
  }

  @Override
  public void close() {
    dataSource.close();
    try {
      dropper.drop();
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop test database " + jdbcUrl(), e);
    }
  }

  @Override
  public String toString() {
    return kind.id();
  }
}
