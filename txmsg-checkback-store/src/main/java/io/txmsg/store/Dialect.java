package io.txmsg.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL dialects txmsg ships schemas and mapper statements for. Detected from JDBC metadata;
 * {@link #id()} is the MyBatis databaseId that selects the dialect's statements.
 */
public enum Dialect {
  H2("h2"),
  MYSQL("mysql"),
  POSTGRESQL("postgresql");

  private final String id;

  Dialect(String id) {
    this.id = id;
  }

  /** The MyBatis databaseId and the schema file prefix. */
  public String id() {
    return id;
  }

  /**
   * @throws IllegalArgumentException for a database txmsg has no schema for
   */
  public static Dialect detect(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("h2")) {
      return H2;
    }
    if (product.contains("mysql") || product.contains("mariadb")) {
      return MYSQL;
    }
    if (product.contains("postgres")) {
      return POSTGRESQL;
    }
    throw new IllegalArgumentException(
        "txmsg supports H2, MySQL/MariaDB and PostgreSQL; this database is '" + product + "'");
  }
}
