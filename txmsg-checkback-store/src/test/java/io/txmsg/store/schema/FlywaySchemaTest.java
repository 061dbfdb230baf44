package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.Dialect;
import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The schema files ({@code io/txmsg/store/flyway/<vendor>/}), run by Flyway itself, on every
 * enabled database. SchemaMigrator reads the same files, so the statements cannot differ; what can
 * is how they run: Flyway parses and runs each file itself, in its own transactions and sessions,
 * with its placeholder replacement. So the tests compare the schema Flyway installs with the one
 * the migrator installs, read back from the database (columns with types, sizes, nullability and
 * defaults; primary keys, indexes and named constraints; on MariaDB the tables' engine and
 * collation; the version row). That a shipped file never changes is SchemaFilesTest's part.
 *
 * <p>Flyway runs as the README configures it: an instance of its own, history table {@value
 * #HISTORY}, the vendor's location, placeholder {@code txmsg_prefix}, baseline at 0 so that it also
 * installs into a schema the application's tables already occupy.
 */
class FlywaySchemaTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = TablePrefix.DEFAULT;
  private static final String HISTORY = "flyway_txmsg_history";

  /** The configuration the README shows, for this database and prefix. */
  static FluentConfiguration txmsgFlyway(DataSource ds, String prefix) throws SQLException {
    Dialect dialect;
    try (Connection c = ds.getConnection()) {
      dialect = Dialect.detect(c);
    }
    return Flyway.configure()
        .dataSource(ds)
        .table(HISTORY)
        .locations(SchemaScripts.flywayLocation(dialect))
        .placeholders(Map.of("txmsg_prefix", prefix))
        .baselineOnMigrate(true)
        .baselineVersion("0");
  }

  private static List<String> versions(MigrateResult result) {
    return result.migrations.stream().map((MigrateOutput m) -> m.version).toList();
  }

  private static List<String> allVersions() {
    List<String> out = new ArrayList<>();
    for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
      out.add(Integer.toString(v));
    }
    return out;
  }

  private static SchemaMigrator migrator(DataSource ds, String prefix) {
    return new SchemaMigrator(ds, TxmsgStore.detect(ds, prefix));
  }

  // ---------------------------------------------------------------------------------------------
  // (a) Flyway on an empty schema: the txmsg checks accept the result.

  @ParameterizedTest
  @MethodSource(DB)
  void flywayOnAnEmptySchemaInstallsWhatTheStartupCheckAccepts(TestDatabase kind) throws Exception {
    for (String prefix : List.of(PREFIX, "acme_tx_")) {
      try (DatabaseFixture db = kind.open()) {
        DataSource ds = db.dataSource();
        assertThat(migrator(ds, prefix).check().state()).isEqualTo(SchemaStatus.State.MISSING);

        MigrateResult result = txmsgFlyway(ds, prefix).load().migrate();
        assertThat(versions(result)).as(prefix).containsExactlyElementsOf(allVersions());

        SchemaMigrator schema = migrator(ds, prefix);
        SchemaStatus status = schema.check();
        assertThat(status.state()).as(prefix + " " + status).isEqualTo(SchemaStatus.State.CURRENT);
        assertThat(status.versionRow()).isTrue();
        assertThat(schema.verify().installed()).isEqualTo(SchemaInstaller.VERSION);
        // What an instance without autoCreateSchema does at startup.
        TxmsgStore store = SchemaMigrator.open(ds, prefix, false);
        // `txmsg schema print` / `apply` find nothing to do.
        assertThat(schema.plan().isEmpty()).isTrue();
        assertThat(schema.apply().changed()).isFalse();
        // The journal works: a row with the V2 columns is written and read back.
        Journal journal = new Journal(ds, store);
        JournalRow row = StoreFixtures.journalRow("f1");
        row.setPublishMode(PublishMode.SEND);
        row.setMessageGroup("g-1");
        new StoreTransactions(ds, store).run(c -> insert(journal, c, row));
        JournalRow read = journal.find("f1");
        assertThat(read.getPublishMode()).isEqualTo(PublishMode.SEND);
        assertThat(read.getMessageGroup()).isEqualTo("g-1");

        // A second run of the txmsg Flyway has nothing to do.
        assertThat(txmsgFlyway(ds, prefix).load().migrate().migrationsExecuted).isZero();
      }
    }
  }

  /**
   * The usual case: the application's own Flyway (default configuration: {@code db/migration},
   * {@code flyway_schema_history}) has created its tables in the same schema first. The txmsg
   * instance baselines its own history at 0 and installs; the application's Flyway never sees the
   * txmsg files.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void flywayInstallsBesideTheApplicationsOwnFlyway(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      MigrateResult app = Flyway.configure().dataSource(ds).load().migrate();
      assertThat(versions(app)).as("the application's migrations only").containsExactly("1");

      MigrateResult txmsg = txmsgFlyway(ds, PREFIX).load().migrate();
      assertThat(versions(txmsg)).containsExactlyElementsOf(allVersions());
      assertThat(migrator(ds, PREFIX).check().state()).isEqualTo(SchemaStatus.State.CURRENT);
      SchemaMigrator.open(ds, PREFIX, false);

      // Each history holds its own rows; the application's has no pending txmsg migration.
      assertThat(Flyway.configure().dataSource(ds).load().info().pending()).isEmpty();
      assertThat(
              Arrays.stream(txmsgFlyway(ds, PREFIX).load().info().applied())
                  .map(m -> m.getVersion().toString()))
          .as("the txmsg history: baseline 0, then each txmsg version")
          .containsExactlyElementsOf(concat(List.of("0"), allVersions()));
      assertThat(rows(ds, "SELECT COUNT(*) FROM app_order")).containsExactly("0");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // (b) Flyway to V1, rows written, Flyway to V2: the rows are kept, the check says current.

  @ParameterizedTest
  @MethodSource(DB)
  void flywayV1ThenRowsThenV2KeepsEveryValue(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      assertThat(versions(txmsgFlyway(ds, PREFIX).target("1").load().migrate()))
          .containsExactly("1");
      SchemaStatus v1 = migrator(ds, PREFIX).check();
      assertThat(v1.installed()).isEqualTo(1);
      assertThat(v1.versionRow()).as("V1 recorded in txmsg_schema").isTrue();
      assertThat(v1.state()).isEqualTo(SchemaStatus.State.OLDER);
      assertThat(SchemaMigrationTest.columns(ds, PREFIX + "journal"))
          .doesNotContain("publish_mode", "message_group");

      SchemaMigrationTest.insertV1Row(ds, "e1", "PENDING", "k1");
      SchemaMigrationTest.insertV1Row(ds, "e22", "SENT", null);
      SchemaMigrationTest.insertV1Row(ds, "e333", "DEAD", "k3");
      Map<String, Map<String, Object>> before = SchemaMigrationTest.journal(ds);

      assertThat(versions(txmsgFlyway(ds, PREFIX).load().migrate()))
          .containsExactlyElementsOf(allVersions().subList(1, allVersions().size()));

      assertThat(migrator(ds, PREFIX).verify().installed()).isEqualTo(SchemaInstaller.VERSION);
      Map<String, Map<String, Object>> after = SchemaMigrationTest.journal(ds);
      assertThat(after.keySet()).containsExactly("e1", "e22", "e333");
      for (String id : before.keySet()) {
        Map<String, Object> row = new LinkedHashMap<>(after.get(id));
        assertThat(row.remove("publish_mode")).as(id).isEqualTo("HALF_MESSAGE");
        assertThat(row).as(id).containsKey("message_group");
        assertThat(row.remove("message_group")).as(id).isNull();
        assertThat(row).as(id).containsKey("instance_id");
        assertThat(row.remove("instance_id")).as(id).isNull();
        assertThat(row).as(id).isEqualTo(before.get(id));
      }
      TxmsgStore store = SchemaMigrator.open(ds, PREFIX, false);
      JournalRow old = new Journal(ds, store).find("e22");
      assertThat(old.getPublishMode()).isEqualTo(PublishMode.HALF_MESSAGE);
    }
  }

  /**
   * Moving a database that {@code txmsg schema apply} (or autoCreateSchema) installed over to
   * Flyway, as docs/runbook.md describes: baseline the txmsg history at the version {@code txmsg
   * schema check} reports, and Flyway continues from there. With the fresh-install baseline (0)
   * Flyway would run V1 again: that fails without changing the txmsg tables, and its history is
   * dropped before the right baseline (it now holds the baseline row, which a second baseline would
   * not replace).
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aDatabaseTheMigratorInstalledAtV1IsTakenOverByFlywayAtItsVersion(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      migrateWithTheMigratorTo(ds, 1);
      SchemaMigrationTest.insertV1Row(ds, "e1", "PENDING", "k1");
      int installed = migrator(ds, PREFIX).check().installed();
      assertThat(installed).isEqualTo(1);

      assertThatThrownBy(() -> txmsgFlyway(ds, PREFIX).load().migrate())
          .as("baseline 0 on installed tables")
          .isInstanceOf(FlywayException.class);
      SchemaStatus untouched = migrator(ds, PREFIX).check();
      assertThat(untouched.installed()).isEqualTo(1);
      assertThat(untouched.versionRow()).isTrue();
      assertThat(SchemaMigrationTest.columns(ds, PREFIX + "journal"))
          .doesNotContain("publish_mode");
      dropHistory(ds);

      MigrateResult result =
          txmsgFlyway(ds, PREFIX).baselineVersion(Integer.toString(installed)).load().migrate();
      assertThat(versions(result))
          .containsExactlyElementsOf(allVersions().subList(installed, allVersions().size()));
      assertThat(migrator(ds, PREFIX).check().state()).isEqualTo(SchemaStatus.State.CURRENT);
      assertThat(SchemaMigrationTest.journal(ds).get("e1"))
          .containsEntry("publish_mode", "HALF_MESSAGE");
    }
  }

  /**
   * docs/runbook.md section 10, "Flyway": V2 fails halfway (here because one of its columns is
   * already there). On MariaDB and H2 the statements before the failure stay committed and Flyway
   * cannot run the file again; on PostgreSQL the file is rolled back. Either way: {@code txmsg
   * schema apply} finishes the schema, and the txmsg history is dropped and baselined at the
   * version {@code txmsg schema check} then reports.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aFlywayMigrationThatFailedHalfwayIsFinishedAsTheRunbookSays(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      txmsgFlyway(ds, PREFIX).target("1").load().migrate();
      SchemaMigrationTest.insertV1Row(ds, "e1", "PENDING", "k1");
      SchemaMigrationTest.sql(
          ds, "ALTER TABLE " + PREFIX + "journal ADD COLUMN message_group VARCHAR(128)");

      assertThatThrownBy(() -> txmsgFlyway(ds, PREFIX).load().migrate())
          .isInstanceOf(FlywayException.class);
      assertThat(migrator(ds, PREFIX).check().state()).isEqualTo(SchemaStatus.State.OLDER);
      assertThatThrownBy(() -> txmsgFlyway(ds, PREFIX).load().migrate())
          .as("Flyway again: it cannot finish V2 itself")
          .isInstanceOf(FlywayException.class);

      SchemaUpgrade finished = migrator(ds, PREFIX).apply();
      assertThat(finished.to()).isEqualTo(SchemaInstaller.VERSION);
      assertThat(finished.alreadyApplied()).isPositive();
      int installed = migrator(ds, PREFIX).check().installed();
      SchemaMigrationTest.sql(
          ds, "DROP TABLE " + (dialect(ds) == Dialect.H2 ? '"' + HISTORY + '"' : HISTORY));
      MigrateResult baselined =
          txmsgFlyway(ds, PREFIX).baselineVersion(Integer.toString(installed)).load().migrate();
      assertThat(baselined.migrationsExecuted).isZero();

      assertThat(migrator(ds, PREFIX).verify().installed()).isEqualTo(SchemaInstaller.VERSION);
      assertThat(txmsgFlyway(ds, PREFIX).load().info().pending()).isEmpty();
      assertThat(txmsgFlyway(ds, PREFIX).load().migrate().migrationsExecuted).isZero();
      assertThat(SchemaMigrationTest.journal(ds).get("e1"))
          .containsEntry("publish_mode", "HALF_MESSAGE")
          .containsEntry("message_key", "k1");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // (c) Parity: Flyway installs the migrator's schema.

  /**
   * The schema Flyway installs equals the one the migrator installs, on two fresh databases of the
   * same kind: at V1 (Flyway target 1; the migrator's plan up to V1) and at the current version.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void flywayInstallsExactlyTheSchemaTheMigratorInstalls(TestDatabase kind) throws Exception {
    try (DatabaseFixture flywayDb = kind.open();
        DatabaseFixture migratorDb = kind.open()) {
      DataSource viaFlyway = flywayDb.dataSource();
      DataSource viaMigrator = migratorDb.dataSource();

      txmsgFlyway(viaFlyway, PREFIX).target("1").load().migrate();
      migrateWithTheMigratorTo(viaMigrator, 1);
      Snapshot flywayV1 = Snapshot.of(viaFlyway, PREFIX);
      Snapshot migratorV1 = Snapshot.of(viaMigrator, PREFIX);
      assertThat(flywayV1.versionRows()).containsExactly("txmsg=1");
      assertSameSchema(flywayV1, migratorV1, kind + " at V1");

      txmsgFlyway(viaFlyway, PREFIX).load().migrate();
      migrator(viaMigrator, PREFIX).apply();
      Snapshot flyway = Snapshot.of(viaFlyway, PREFIX);
      Snapshot migrator = Snapshot.of(viaMigrator, PREFIX);
      // Guards the snapshot itself: an empty read would make the comparison pass.
      assertThat(flyway.columns()).hasSize(16);
      assertThat(flyway.indexes()).containsKey(PREFIX + "archive_run_started_ix");
      assertThat(flyway.columns().get(PREFIX + "journal"))
          .anyMatch(c -> c.startsWith("publish_mode "))
          .anyMatch(c -> c.startsWith("message_group "));
      assertThat(flyway.indexes()).containsKey(PREFIX + "journal_due_ix");
      assertThat(flyway.primaryKeys()).containsKey(PREFIX + "journal");
      assertThat(flyway.versionRows()).containsExactly("txmsg=" + SchemaInstaller.VERSION);
      assertThat(flyway.constraints())
          .contains(PREFIX + "command=" + PREFIX + "command_seq_uk=UNIQUE");
      assertThat(flyway.tableOptions()).hasSize(kind == TestDatabase.MARIADB ? 16 : 0);
      assertSameSchema(flyway, migrator, kind + " at V" + SchemaInstaller.VERSION);
    }
  }

  /**
   * The comparison above sees what a diverging install would change: each of these edits of an
   * installed schema makes its snapshot differ from the one before, in the part it edited.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void theSchemaComparisonSeesEachKindOfDivergence(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      migrator(ds, PREFIX).apply();
      Dialect d = dialect(ds);
      String journal = PREFIX + "journal";
      Snapshot before = Snapshot.of(ds, PREFIX);

      // A column's type (size).
      SchemaMigrationTest.sql(
          ds,
          switch (d) {
            case H2 ->
                "ALTER TABLE " + journal + " ALTER COLUMN message_group SET DATA TYPE VARCHAR(64)";
            case MYSQL -> "ALTER TABLE " + journal + " MODIFY message_group VARCHAR(64)";
            case POSTGRESQL ->
                "ALTER TABLE " + journal + " ALTER COLUMN message_group TYPE VARCHAR(64)";
          });
      before = changedIn(ds, before, "columns");
      // A default.
      SchemaMigrationTest.sql(
          ds, "ALTER TABLE " + journal + " ALTER COLUMN publish_mode SET DEFAULT 'SEND'");
      before = changedIn(ds, before, "columns");
      // Nullability.
      SchemaMigrationTest.sql(
          ds,
          d == Dialect.MYSQL
              ? "ALTER TABLE " + journal + " MODIFY tag VARCHAR(128) NOT NULL"
              : "ALTER TABLE " + journal + " ALTER COLUMN tag SET NOT NULL");
      before = changedIn(ds, before, "columns");
      // An index's columns: dropped and created again on other columns, under the same name.
      String ix = PREFIX + "journal_created_ix";
      SchemaMigrationTest.sql(
          ds, d == Dialect.MYSQL ? "DROP INDEX " + ix + " ON " + journal : "DROP INDEX " + ix);
      SchemaMigrationTest.sql(ds, "CREATE INDEX " + ix + " ON " + journal + " (updated_at)");
      before = changedIn(ds, before, "indexes");
      // The version row.
      SchemaMigrationTest.sql(ds, "UPDATE " + PREFIX + "schema SET version = 1");
      changedIn(ds, before, "versionRows");
    }
  }

  /** Part by part and table by table, so that a failure names what differs. */
  private static void assertSameSchema(Snapshot flyway, Snapshot migrator, String what) {
    assertThat(flyway.columns().keySet())
        .as(what + ": tables")
        .containsExactlyElementsOf(migrator.columns().keySet());
    for (String table : migrator.columns().keySet()) {
      assertThat(flyway.columns().get(table))
          .as(what + ": columns of " + table + " (Flyway, then the migrator's)")
          .containsExactlyElementsOf(migrator.columns().get(table));
    }
    for (Map.Entry<String, Object> part : migrator.parts().entrySet()) {
      assertThat(flyway.parts().get(part.getKey()))
          .as(what + ": " + part.getKey() + " (Flyway, then the migrator's)")
          .isEqualTo(part.getValue());
    }
    assertThat(flyway).isEqualTo(migrator); // nothing the parts above leave out
  }

  private static Snapshot changedIn(DataSource ds, Snapshot before, String part) throws Exception {
    Snapshot after = Snapshot.of(ds, PREFIX);
    assertThat(after).as("after changing " + part).isNotEqualTo(before);
    assertThat(after.parts().get(part)).as(part).isNotEqualTo(before.parts().get(part));
    return after;
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * What a txmsg schema consists of in a database, as JDBC metadata reports it, for the tables
   * named with the prefix: per table its columns in order (name, type, size, digits, nullability,
   * default), its primary key, the indexes (name, uniqueness, columns in order) and the version
   * rows. Names the database generates for the indexes of primary keys and unique constraints are
   * replaced by what they index: they depend on the order objects were created in (H2 numbers them
   * database-wide, and Flyway creates its history table first).
   */
  record Snapshot(
      Map<String, List<String>> columns,
      Map<String, String> primaryKeys,
      Map<String, String> indexes,
      List<String> constraints,
      List<String> tableOptions,
      List<String> versionRows) {

    Map<String, Object> parts() {
      return Map.of(
          "columns", columns,
          "primaryKeys", primaryKeys,
          "indexes", indexes,
          "constraints", constraints,
          "tableOptions", tableOptions,
          "versionRows", versionRows);
    }

    static Snapshot of(DataSource ds, String prefix) throws SQLException {
      Map<String, List<String>> columns = new TreeMap<>();
      Map<String, String> primaryKeys = new TreeMap<>();
      Map<String, String> indexes = new TreeMap<>();
      try (Connection c = ds.getConnection()) {
        DatabaseMetaData md = c.getMetaData();
        List<String> tables = new ArrayList<>();
        try (ResultSet rs =
            md.getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
          while (rs.next()) {
            if (lower(rs.getString("TABLE_NAME")).startsWith(prefix)) {
              tables.add(rs.getString("TABLE_NAME"));
            }
          }
        }
        for (String table : tables) {
          String name = lower(table);
          Map<Integer, String> cols = new TreeMap<>();
          try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), table, "%")) {
            while (rs.next()) {
              cols.put(
                  rs.getInt("ORDINAL_POSITION"),
                  lower(rs.getString("COLUMN_NAME"))
                      + " "
                      + rs.getString("TYPE_NAME")
                      + "("
                      + rs.getInt("COLUMN_SIZE")
                      + ","
                      + rs.getInt("DECIMAL_DIGITS")
                      + ") "
                      + (rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls
                          ? "not null"
                          : "null")
                      + " default "
                      + rs.getString("COLUMN_DEF"));
            }
          }
          columns.put(name, new ArrayList<>(cols.values()));

          Map<Integer, String> pk = new TreeMap<>();
          String pkName = null;
          try (ResultSet rs = md.getPrimaryKeys(c.getCatalog(), c.getSchema(), table)) {
            while (rs.next()) {
              pk.put(rs.getInt("KEY_SEQ"), lower(rs.getString("COLUMN_NAME")));
              pkName = rs.getString("PK_NAME");
            }
          }
          primaryKeys.put(name, (pkName == null ? null : lower(pkName)) + " " + pk.values());

          Map<String, Map<Integer, String>> ixColumns = new TreeMap<>();
          Map<String, Boolean> ixUnique = new TreeMap<>();
          try (ResultSet rs = md.getIndexInfo(c.getCatalog(), c.getSchema(), table, false, false)) {
            while (rs.next()) {
              String ix = rs.getString("INDEX_NAME");
              if (ix == null) {
                continue; // table statistics
              }
              ixColumns
                  .computeIfAbsent(ix, k -> new TreeMap<>())
                  .put((int) rs.getShort("ORDINAL_POSITION"), lower(rs.getString("COLUMN_NAME")));
              ixUnique.put(ix, !rs.getBoolean("NON_UNIQUE"));
            }
          }
          for (String ix : ixColumns.keySet()) {
            String definition =
                (ixUnique.get(ix) ? "unique " : "")
                    + "on "
                    + name
                    + " "
                    + ixColumns.get(ix).values();
            String key =
                lower(ix).startsWith(prefix) && !lower(ix).contains("_index_")
                    ? lower(ix)
                    : "(generated) " + definition;
            if (indexes.put(key, definition) != null) {
              throw new IllegalStateException("two indexes read as " + key);
            }
          }
        }
      }
      Dialect dialect = dialect(ds);
      // Named primary-key and unique constraints (H2 reports the index behind a unique
      // constraint under a generated name only). NOT NULL and CHECK constraints are left out:
      // PostgreSQL names them after object ids, and nullability is compared per column.
      String where =
          (dialect == Dialect.MYSQL ? "table_schema = DATABASE()" : "table_schema = CURRENT_SCHEMA")
              + " AND LOWER(table_name) LIKE '"
              + prefix.replace("_", "!_")
              + "%' ESCAPE '!'";
      List<String> constraints =
          rows(
              ds,
              "SELECT LOWER(table_name), LOWER(constraint_name), constraint_type"
                  + " FROM information_schema.table_constraints WHERE "
                  + where
                  + " AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
                  + " ORDER BY 1, 2, 3");
      // MariaDB/MySQL: the storage engine and collation come from the database's defaults,
      // which the files must not override either.
      List<String> tableOptions =
          dialect == Dialect.MYSQL
              ? rows(
                  ds,
                  "SELECT LOWER(table_name), engine, table_collation FROM information_schema.tables"
                      + " WHERE "
                      + where
                      + " ORDER BY 1")
              : List.of();
      List<String> versionRows =
          rows(ds, "SELECT name, version FROM " + prefix + "schema ORDER BY name");
      return new Snapshot(columns, primaryKeys, indexes, constraints, tableOptions, versionRows);
    }
  }

  /** Each row's columns joined with '='. */
  static List<String> rows(DataSource ds, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          b.append(i > 1 ? "=" : "").append(rs.getString(i));
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  /** Runs the migrator's plan for an empty database up to and including version {@code to}. */
  private static void migrateWithTheMigratorTo(DataSource ds, int to) throws SQLException {
    try (Connection c = ds.getConnection()) {
      Dialect d = Dialect.detect(c);
      SchemaPlan all = SchemaScripts.plan(d, PREFIX, SchemaStatus.empty(PREFIX));
      c.setAutoCommit(true);
      SchemaMigrator.run(c, d, new SchemaPlan(d, PREFIX, 0, to, all.steps().subList(0, to + 1)));
    }
  }

  /** The runbook's DROP TABLE flyway_txmsg_history (Flyway quotes the name on H2). */
  private static void dropHistory(DataSource ds) throws Exception {
    SchemaMigrationTest.sql(
        ds, "DROP TABLE " + (dialect(ds) == Dialect.H2 ? '"' + HISTORY + '"' : HISTORY));
  }

  private static Dialect dialect(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return Dialect.detect(c);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  private static Void insert(Journal journal, Connection c, JournalRow row) {
    journal.insert(c, row, 1000);
    return null;
  }
}
