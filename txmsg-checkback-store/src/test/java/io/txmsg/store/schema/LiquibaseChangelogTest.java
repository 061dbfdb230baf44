package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Liquibase changelog ({@value SchemaScripts#LIQUIBASE_CHANGELOG}), run by Liquibase itself on
 * every enabled database, with history tables of its own and the prefix as a changelog parameter.
 * It runs the same files as SchemaMigrator, but through Liquibase's own statement splitting,
 * comment stripping and parameter expansion: so the schema it installs is compared with the
 * migrator's, read back through JDBC metadata (FlywaySchemaTest's snapshot).
 */
class LiquibaseChangelogTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = TablePrefix.DEFAULT;

  /**
   * A Liquibase on one connection, as an application would configure it for txmsg: history tables
   * liquibase_(prefix)changelog and liquibase_(prefix)lock, the prefix as parameter. The history
   * names do not start with the prefix, so they are not mistaken for txmsg tables.
   */
  static Liquibase liquibase(Connection c, String prefix) throws Exception {
    Database database =
        DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
    database.setDatabaseChangeLogTableName("liquibase_" + prefix + "changelog");
    database.setDatabaseChangeLogLockTableName("liquibase_" + prefix + "lock");
    Liquibase liquibase =
        new Liquibase(
            SchemaScripts.LIQUIBASE_CHANGELOG, new ClassLoaderResourceAccessor(), database);
    liquibase.setChangeLogParameter("txmsg_prefix", prefix);
    return liquibase;
  }

  private static void update(DataSource ds, String prefix, Integer count) throws Exception {
    try (Connection c = ds.getConnection()) {
      Liquibase liquibase = liquibase(c, prefix);
      if (count == null) {
        liquibase.update(new Contexts(), new LabelExpression());
      } else {
        liquibase.update(count, new Contexts(), new LabelExpression());
      }
    }
  }

  private static int unrun(DataSource ds, String prefix) throws Exception {
    try (Connection c = ds.getConnection()) {
      return liquibase(c, prefix).listUnrunChangeSets(new Contexts(), new LabelExpression()).size();
    }
  }

  private static SchemaMigrator migrator(DataSource ds, String prefix) {
    return new SchemaMigrator(ds, TxmsgStore.detect(ds, prefix));
  }

  @ParameterizedTest
  @MethodSource(DB)
  void liquibaseInstallsExactlyTheSchemaTheMigratorInstalls(TestDatabase kind) throws Exception {
    try (DatabaseFixture liquibaseDb = kind.open();
        DatabaseFixture migratorDb = kind.open()) {
      DataSource viaLiquibase = liquibaseDb.dataSource();
      DataSource viaMigrator = migratorDb.dataSource();
      // each version and its tag
      assertThat(unrun(viaLiquibase, PREFIX)).isEqualTo(2 * SchemaInstaller.VERSION);

      update(viaLiquibase, PREFIX, null);
      migrator(viaMigrator, PREFIX).apply();

      FlywaySchemaTest.Snapshot liquibase = FlywaySchemaTest.Snapshot.of(viaLiquibase, PREFIX);
      FlywaySchemaTest.Snapshot migrator = FlywaySchemaTest.Snapshot.of(viaMigrator, PREFIX);
      // Guards the snapshot itself: an empty read would make the comparison pass.
      assertThat(liquibase.columns()).hasSize(16);
      assertThat(liquibase.indexes()).containsKey(PREFIX + "journal_due_ix");
      assertThat(liquibase.versionRows()).containsExactly("txmsg=" + SchemaInstaller.VERSION);
      assertThat(liquibase.columns().keySet())
          .containsExactlyElementsOf(migrator.columns().keySet());
      for (String table : migrator.columns().keySet()) {
        assertThat(liquibase.columns().get(table))
            .as(kind + ": columns of " + table + " (Liquibase, then the migrator's)")
            .containsExactlyElementsOf(migrator.columns().get(table));
      }
      for (Map.Entry<String, Object> part : migrator.parts().entrySet()) {
        assertThat(liquibase.parts().get(part.getKey()))
            .as(kind + ": " + part.getKey() + " (Liquibase, then the migrator's)")
            .isEqualTo(part.getValue());
      }
      assertThat(liquibase).isEqualTo(migrator);

      // txmsg's checks accept it; a second run has nothing to do.
      assertThat(migrator(viaLiquibase, PREFIX).verify().installed())
          .isEqualTo(SchemaInstaller.VERSION);
      SchemaMigrator.open(viaLiquibase, PREFIX, false);
      assertThat(migrator(viaLiquibase, PREFIX).plan().isEmpty()).isTrue();
      assertThat(unrun(viaLiquibase, PREFIX)).isZero();
    }
  }

  /**
   * The prefix parameter reaches every statement: a second set of tables under another prefix, in
   * the same schema, with its own history, beside the default one.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void theChangelogInstallsUnderAnotherPrefixBesideTheDefault(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      update(ds, PREFIX, null);
      update(ds, "acme_tx_", null);
      for (String prefix : List.of(PREFIX, "acme_tx_")) {
        assertThat(migrator(ds, prefix).check().state())
            .as(prefix)
            .isEqualTo(SchemaStatus.State.CURRENT);
        assertThat(FlywaySchemaTest.Snapshot.of(ds, prefix).columns()).as(prefix).hasSize(16);
        assertThat(unrun(ds, prefix)).as(prefix).isZero();
      }
    }
  }

  /**
   * A database the migrator (txmsg schema apply, auto-create) installed at V1 is taken over by
   * changelog-sync-to-tag txmsg-V1, and Liquibase continues from there: V1 is not run again, the
   * rows are kept.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aDatabaseTheMigratorInstalledIsTakenOverBySyncingToItsVersionsTag(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      try (Connection c = ds.getConnection()) {
        io.txmsg.store.Dialect d = io.txmsg.store.Dialect.detect(c);
        SchemaPlan all = SchemaScripts.plan(d, PREFIX, SchemaStatus.empty(PREFIX));
        c.setAutoCommit(true);
        SchemaMigrator.run(c, d, new SchemaPlan(d, PREFIX, 0, 1, all.steps().subList(0, 2)));
      }
      SchemaMigrationTest.insertV1Row(ds, "e1", "PENDING", "k1");
      int installed = migrator(ds, PREFIX).check().installed();
      assertThat(installed).isEqualTo(1);

      try (Connection c = ds.getConnection()) {
        liquibase(c, PREFIX)
            .changeLogSync("txmsg-V" + installed, new Contexts(), new LabelExpression());
      }
      assertThat(unrun(ds, PREFIX)).isEqualTo(2 * (SchemaInstaller.VERSION - installed));
      update(ds, PREFIX, null);

      assertThat(migrator(ds, PREFIX).verify().installed()).isEqualTo(SchemaInstaller.VERSION);
      assertThat(SchemaMigrationTest.journal(ds).get("e1"))
          .containsEntry("publish_mode", "HALF_MESSAGE")
          .containsEntry("message_key", "k1");
      assertThat(unrun(ds, PREFIX)).isZero();
    }
  }

  /** V1 by Liquibase, rows written, the rest by Liquibase: rows kept, the check says current. */
  @ParameterizedTest
  @MethodSource(DB)
  void liquibaseV1ThenRowsThenTheRestKeepsEveryValue(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      update(ds, PREFIX, 2); // V1 and its tag
      SchemaStatus v1 = migrator(ds, PREFIX).check();
      assertThat(v1.installed()).isEqualTo(1);
      assertThat(v1.versionRow()).isTrue();
      SchemaMigrationTest.insertV1Row(ds, "e1", "PENDING", "k1");
      SchemaMigrationTest.insertV1Row(ds, "e22", "SENT", null);
      Map<String, Map<String, Object>> before = SchemaMigrationTest.journal(ds);

      update(ds, PREFIX, null);

      assertThat(migrator(ds, PREFIX).verify().installed()).isEqualTo(SchemaInstaller.VERSION);
      Map<String, Map<String, Object>> after = SchemaMigrationTest.journal(ds);
      assertThat(after.keySet()).containsExactly("e1", "e22");
      for (String id : before.keySet()) {
        Map<String, Object> row = new LinkedHashMap<>(after.get(id));
        assertThat(row.remove("publish_mode")).as(id).isEqualTo("HALF_MESSAGE");
        assertThat(row.remove("message_group")).as(id).isNull();
        assertThat(row).as(id).containsKey("instance_id");
        assertThat(row.remove("instance_id")).as(id).isNull();
        assertThat(row).as(id).isEqualTo(before.get(id));
      }
      JournalRow read = new Journal(ds, SchemaMigrator.open(ds, PREFIX, false)).find("e22");
      assertThat(read.getStatus().name()).isEqualTo("SENT");
    }
  }
}
