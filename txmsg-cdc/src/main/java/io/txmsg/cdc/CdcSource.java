package io.txmsg.cdc;

import io.txmsg.api.InvalidSettingsException;
import java.net.URI;
import java.util.Objects;

/**
 * Where the relay reads the database's log: host, port, database and the account Debezium logs in
 * with (PostgreSQL: a role with REPLICATION; MariaDB/MySQL: REPLICATION SLAVE and BINLOG MONITOR /
 * REPLICATION CLIENT; see txmsg-cdc/README.md, "Privileges"). A pool's DataSource cannot give its
 * password back, so the relay is told explicitly. Immutable: the {@code with…} methods return a
 * copy.
 */
public final class CdcSource {
  private final String host;
  private final int port;
  private final String database;
  private final String user;
  private final String password;

  private CdcSource(String host, int port, String database, String user, String password) {
    this.host = host;
    this.port = port;
    this.database = database;
    this.user = user;
    this.password = password;
  }

  /** The server and database; credentials follow with {@link #withCredentials}. */
  public static CdcSource of(String host, int port, String database) {
    return new CdcSource(host, port, database, null, "");
  }

  /**
   * The host, port and database of a {@code jdbc:postgresql://}, {@code jdbc:mariadb://} or {@code
   * jdbc:mysql://} URL (its parameters are ignored), with these credentials.
   *
   * @throws InvalidSettingsException naming {@code cdc.source} when the URL is not one of these
   */
  public static CdcSource fromJdbcUrl(String jdbcUrl, String user, String password) {
    if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
      throw new InvalidSettingsException("cdc.source", "'" + jdbcUrl + "' is not a JDBC URL");
    }
    URI uri;
    try {
      uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    } catch (IllegalArgumentException e) {
      throw new InvalidSettingsException("cdc.source", "'" + jdbcUrl + "' cannot be parsed");
    }
    int defaultPort =
        switch (String.valueOf(uri.getScheme())) {
          case "postgresql" -> 5432;
          case "mariadb", "mysql" -> 3306;
          default ->
              throw new InvalidSettingsException(
                  "cdc.source",
                  "'"
                      + jdbcUrl
                      + "' is not a PostgreSQL, MariaDB or MySQL URL (CDC reads their logs)");
        };
    String path = uri.getPath() == null ? "" : uri.getPath();
    String database = path.startsWith("/") ? path.substring(1) : path;
    return new CdcSource(
            uri.getHost(), uri.getPort() > 0 ? uri.getPort() : defaultPort, database, null, "")
        .withCredentials(user, password);
  }

  /** The account the relay reads the log with; a null password is an empty one. */
  public CdcSource withCredentials(String user, String password) {
    return new CdcSource(host, port, database, user, password == null ? "" : password);
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public String database() {
    return database;
  }

  public String user() {
    return user;
  }

  /** Never logged. */
  String password() {
    return password;
  }

  /**
   * @throws InvalidSettingsException naming the field ({@code cdc.source.host}, …)
   */
  void validate() {
    if (host == null || host.isBlank()) {
      throw new InvalidSettingsException("cdc.source.host", "is required");
    }
    if (port <= 0 || port > 65535) {
      throw new InvalidSettingsException("cdc.source.port", "must be 1..65535, was " + port);
    }
    if (database == null || database.isBlank()) {
      throw new InvalidSettingsException("cdc.source.database", "is required");
    }
    if (user == null || user.isBlank()) {
      throw new InvalidSettingsException(
          "cdc.source.user", "is required: CdcSource.withCredentials(user, password)");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CdcSource s
        && host.equals(s.host)
        && port == s.port
        && database.equals(s.database)
        && Objects.equals(user, s.user)
        && password.equals(s.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(host, port, database, user);
  }

  /** Never shows the password. */
  @Override
  public String toString() {
    return "CdcSource{" + user + "@" + host + ":" + port + "/" + database + "}";
  }
}
