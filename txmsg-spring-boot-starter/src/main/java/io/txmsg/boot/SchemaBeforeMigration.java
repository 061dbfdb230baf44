package io.txmsg.boot;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.store.schema.SchemaStatus;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * What the Flyway and Liquibase runners check before they migrate one set of txmsg tables: the
 * database's dialect, and that the tables (if any) carry a version row. Tables installed by a
 * release before schema versions have none, so neither tool could tell which version to start from.
 */
record SchemaBeforeMigration(Dialect dialect, SchemaStatus status) {

  /**
   * @param tool the migration tool's name, for the message ("Flyway", "Liquibase")
   * @param enabledProperty the property that turns that runner off
   * @return the dialect of {@code dataSource} and the status of the tables of {@code prefix}
   * @throws IllegalStateException when the tables of {@code prefix} have no version row, saying to
   *     run {@code txmsg schema apply} once or to set {@code enabledProperty=false}
   */
  static SchemaBeforeMigration check(
      DataSource dataSource, String prefix, String tool, String enabledProperty) throws Exception {
    Dialect dialect;
    try (Connection c = dataSource.getConnection()) {
      dialect = Dialect.detect(c);
    }
    SchemaStatus status = new SchemaMigrator(dataSource, TxmsgStore.of(dialect, prefix)).check();
    if (status.installed() > 0 && !status.versionRow()) {
      throw new IllegalStateException(
          "txmsg "
              + tool
              + ": the tables with prefix "
              + prefix
              + " were installed by a release before schema versions ("
              + status.describe()
              + "); run `txmsg schema apply --prefix "
              + prefix
              + "` once (it records the version "
              + tool
              + " starts from), or set "
              + enabledProperty
              + "=false");
    }
    return new SchemaBeforeMigration(dialect, status);
  }
}
