package io.txmsg.store.schema;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Installs or upgrades the shipped, versioned schema ({@code io/txmsg/store/flyway/<vendor>/V<n>
 * __txmsg_<what>.sql}, see {@link SchemaScripts}) for a prefix: the optional auto-create at startup
 * and what tests use. Production teams run {@code txmsg schema apply} (or the files with their own
 * tool); {@link SchemaMigrator} holds the mechanism.
 */
public final class SchemaInstaller {
  /**
   * The schema version this release reads and writes. Adding a version: a new file {@code
   * V<n>__txmsg_<what>.sql} in every vendor directory under {@code io/txmsg/store/flyway/} (ending
   * with the statement that moves the version row, see {@link SchemaScripts}), its name in {@code
   * SchemaScripts}, a changeset in the Liquibase changelog, its checksum pinned in the store's
   * tests, bump this, and a migration test on data (docs/architecture.md, "Schema versions").
   */
  public static final int VERSION = 6;

  private SchemaInstaller() {}

  /**
   * Everything a fresh install runs for a dialect and prefix, in order: the version table, then
   * each version's statements and the statement recording it.
   */
  public static List<String> statements(Dialect dialect, String prefix) {
    return SchemaScripts.plan(dialect, prefix, SchemaStatus.empty(prefix)).statements();
  }

  /**
   * Installs the schema when it is missing and upgrades it in place when it is older, under the
   * database lock that serialises instances starting together.
   *
   * @return true when it installed the tables, false when they existed (upgraded or not)
   * @throws SchemaVersionException when the database holds a version this release does not know
   */
  public static boolean installIfMissing(DataSource dataSource, String prefix) {
    try {
      TxmsgStore store = TxmsgStore.detect(dataSource, prefix);
      return new SchemaMigrator(dataSource, store).apply().from() == 0;
    } catch (SQLException e) {
      throw new IllegalStateException("txmsg schema installation failed: " + e.getMessage(), e);
    }
  }

  /**
   * Installs or upgrades on this connection without the inter-instance lock: for a database the
   * caller alone uses (tests, tools). Leaves the connection's auto-commit as it found it.
   */
  public static void install(Connection c, Dialect dialect, String prefix) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(true);
    try {
      SchemaMigrator.run(
          c, dialect, SchemaScripts.plan(dialect, prefix, SchemaMigrator.read(c, prefix)));
    } finally {
      c.setAutoCommit(auto);
    }
  }
}
