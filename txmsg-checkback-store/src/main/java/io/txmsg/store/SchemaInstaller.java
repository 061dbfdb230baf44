package io.txmsg.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Installs the shipped, versioned schema ({@code io/txmsg/store/schema/<dialect>-V1__txmsg.sql})
 * for a prefix. Production teams usually apply those files with their own migration tool; this
 * class is the optional auto-create and what tests use.
 */
public final class SchemaInstaller {
  /** The schema version this release reads and writes. */
  public static final int VERSION = 1;

  private SchemaInstaller() {}

  /** The schema's statements for a dialect and prefix, in order. */
  public static List<String> statements(Dialect dialect, String prefix) {
    TablePrefix.validate(prefix);
    String resource = "schema/" + dialect.id() + "-V" + VERSION + "__txmsg.sql";
    String text;
    try (InputStream in = SchemaInstaller.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      if (line.strip().equals(";")) {
        String sql = current.toString().strip();
        if (!sql.isEmpty()) {
          out.add(sql.replace("${prefix}", prefix));
        }
        current.setLength(0);
      } else if (!line.strip().startsWith("--")) {
        current.append(line).append('\n');
      }
    }
    return out;
  }

  /** Creates the tables unless the journal table already exists. */
  public static boolean installIfMissing(DataSource dataSource, String prefix) {
    try (Connection c = dataSource.getConnection()) {
      if (exists(c, prefix)) {
        return false;
      }
      install(c, Dialect.detect(c), prefix);
      return true;
    } catch (SQLException e) {
      throw new IllegalStateException("txmsg schema installation failed: " + e.getMessage(), e);
    }
  }

  /** Runs every statement of the schema on this connection and commits. */
  public static void install(Connection c, Dialect dialect, String prefix) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      for (String sql : statements(dialect, prefix)) {
        s.execute(sql);
      }
    } finally {
      c.setAutoCommit(auto);
    }
  }

  static boolean exists(Connection c, String prefix) {
    boolean auto = true;
    try {
      auto = c.getAutoCommit();
      // autocommit so that PostgreSQL's failed probe does not poison a transaction
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.executeQuery("SELECT 1 FROM " + prefix + "journal WHERE 1 = 0").close();
        return true;
      }
    } catch (SQLException e) {
      return false;
    } finally {
      try {
        c.setAutoCommit(auto);
      } catch (SQLException ignored) {
        // the probe connection is closed by the caller
      }
    }
  }
}
