package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.Dialect;
import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.archive.Archiver;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Schema versions on every enabled database: a V1 database with rows upgraded in place, an
 * interrupted upgrade finished by running it again, instances upgrading together, and startup
 * refusing a schema it cannot use.
 */
class SchemaMigrationTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = "txmsg_";
  private static final Archiver.Audit AUDIT = new Archiver.Audit("test", "schema migration test");

  /** What a release before schema versions installed: the V1 file, nothing else. */
  static void installV1(DataSource ds, String prefix) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      for (String sql : SchemaScripts.version(Dialect.detect(c), prefix, 1)) {
        s.execute(sql);
      }
    }
  }

  /** A journal row as the V1 release wrote it (V1 columns only). */
  static void insertV1Row(DataSource ds, String eventId, String status, String messageKey)
      throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement p =
            c.prepareStatement(
                "INSERT INTO "
                    + PREFIX
                    + "journal (event_id, attempt_id, store_id, aggregate_type, aggregate_id,"
                    + " aggregate_version, event_type, event_version, destination, tag,"
                    + " message_key, payload, payload_hash, headers, status, retry_count,"
                    + " next_retry_at, created_at, updated_at) VALUES (?, ?, 's1', 'Order', ?,"
                    + " ?, 'Paid', 1, 'payment', 'tagA', ?, ?, ?, '{\"k\":\"v\"}', ?, 2,"
                    + " LOCALTIMESTAMP, LOCALTIMESTAMP, LOCALTIMESTAMP)")) {
      c.setAutoCommit(true);
      p.setString(1, eventId);
      p.setString(2, "att-" + eventId);
      p.setString(3, "order-" + eventId);
      p.setLong(4, eventId.length());
      p.setString(5, messageKey);
      p.setBytes(6, ("payload-" + eventId).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      p.setString(7, "b".repeat(64));
      p.setString(8, status);
      p.executeUpdate();
    }
  }

  /** Every column of every journal row, by event id; payloads as lists to compare by value. */
  static Map<String, Map<String, Object>> journal(DataSource ds) throws Exception {
    Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + PREFIX + "journal ORDER BY event_id")) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          row.put(
              md.getColumnLabel(i).toLowerCase(Locale.ROOT),
              v instanceof byte[] b ? Arrays.toString(b) : rs.getString(i));
        }
        rows.put(rs.getString("event_id"), row);
      }
    }
    return rows;
  }

  static Integer versionRow(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT version FROM " + PREFIX + "schema WHERE name = 'txmsg'")) {
      return rs.next() ? rs.getInt(1) : null;
    }
  }

  static void sql(DataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(sql);
    }
  }

  static List<String> columns(DataSource ds, String table) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      String stored = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
      try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), stored, "%")) {
        while (rs.next()) {
          out.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
        }
      }
    }
    return out;
  }

  static TreeSet<String> indexes(DataSource ds, String table) throws Exception {
    TreeSet<String> out = new TreeSet<>();
    try (Connection c = ds.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      String stored = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
      try (ResultSet rs = md.getIndexInfo(c.getCatalog(), c.getSchema(), stored, false, false)) {
        while (rs.next()) {
          if (rs.getString("INDEX_NAME") != null) {
            out.add(rs.getString("INDEX_NAME").toLowerCase(Locale.ROOT));
          }
        }
      }
    }
    return out;
  }

  private static SchemaMigrator migrator(DatabaseFixture db) {
    return new SchemaMigrator(db.dataSource(), TxmsgStore.detect(db.dataSource(), PREFIX));
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aV1DatabaseWithRowsIsUpgradedInPlaceKeepingEveryValue(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      installV1(ds, PREFIX);
      insertV1Row(ds, "e1", "PENDING", "k1");
      insertV1Row(ds, "e22", "SENT", null);
      insertV1Row(ds, "e333", "DEAD", "k3");
      Map<String, Map<String, Object>> before = journal(ds);
      SchemaMigrator schema = migrator(db);

      SchemaStatus found = schema.check();
      assertThat(found.installed()).isEqualTo(1);
      assertThat(found.versionTable()).isFalse();
      assertThat(found.state()).isEqualTo(SchemaStatus.State.OLDER);
      assertThat(schema.plan().statements())
          .first()
          .asString()
          .startsWith("CREATE TABLE " + PREFIX + "schema");

      SchemaUpgrade upgrade = schema.apply();
      assertThat(upgrade.from()).isEqualTo(1);
      assertThat(upgrade.to()).isEqualTo(6);
      assertThat(upgrade.statements())
          .isEqualTo(
              SchemaScripts.version(Dialect.H2, PREFIX, 2).size()
                  + SchemaScripts.version(Dialect.H2, PREFIX, 3).size()
                  + SchemaScripts.version(Dialect.H2, PREFIX, 4).size()
                  + SchemaScripts.version(Dialect.H2, PREFIX, 5).size()
                  + SchemaScripts.version(Dialect.H2, PREFIX, 6).size());
      assertThat(upgrade.alreadyApplied()).isZero();
      assertThat(versionRow(ds)).isEqualTo(6);
      assertThat(columns(ds, PREFIX + "archive_run")).startsWith("run_id", "operator", "reason");

      // Every V1 value is unchanged; the new columns hold HALF_MESSAGE and NULL.
      Map<String, Map<String, Object>> after = journal(ds);
      assertThat(after.keySet()).containsExactly("e1", "e22", "e333");
      for (String id : before.keySet()) {
        Map<String, Object> row = new LinkedHashMap<>(after.get(id));
        assertThat(row.remove("publish_mode")).as(id).isEqualTo("HALF_MESSAGE");
        assertThat(row.containsKey("message_group")).isTrue();
        assertThat(row.remove("message_group")).as(id).isNull();
        assertThat(row).as(id).containsKey("instance_id");
        assertThat(row.remove("instance_id")).as(id).isNull();
        assertThat(row).as(id).isEqualTo(before.get(id));
      }
      assertThat(columns(ds, PREFIX + "journal"))
          .endsWith("publish_mode", "message_group", "instance_id");
      assertThat(columns(ds, PREFIX + "journal_archive"))
          .endsWith("publish_mode", "message_group", "instance_id");
      // The FIFO ordering query's index is the V1 one (see the V2 files).
      assertThat(indexes(ds, PREFIX + "journal")).contains(PREFIX + "journal_aggregate_ix");
      // V6: the business-key index V1 created is gone (opt-in), the dead letters keep theirs.
      assertThat(indexes(ds, PREFIX + "journal"))
          .doesNotContain(PREFIX + "journal_business_key_ix");
      assertThat(indexes(ds, PREFIX + "dead_letter"))
          .contains(PREFIX + "dead_letter_business_key_ix");

      // The mapper reads the upgraded rows and writes both modes.
      TxmsgStore store = SchemaMigrator.open(ds, PREFIX, false);
      StoreTransactions tx = new StoreTransactions(ds, store);
      Journal journal = new Journal(ds, store);
      JournalRow old = journal.find("e22");
      assertThat(old.getPublishMode()).isEqualTo(PublishMode.HALF_MESSAGE);
      assertThat(old.getPayload()).isEqualTo("payload-e22".getBytes());
      JournalRow send = StoreFixtures.journalRow("n1");
      send.setPublishMode(PublishMode.SEND);
      send.setMessageGroup("order-7");
      JournalRow unset = StoreFixtures.journalRow("n2");
      tx.run(
          c -> {
            journal.insert(c, send, 1000);
            journal.insert(c, unset, 1000);
            return null;
          });
      JournalRow readSend = journal.find("n1");
      assertThat(readSend.getPublishMode()).isEqualTo(PublishMode.SEND);
      assertThat(readSend.getMessageGroup()).isEqualTo("order-7");
      assertThat(journal(ds).get("n2")).containsEntry("publish_mode", "HALF_MESSAGE");

      // Again: nothing to do, no lock taken, nothing run.
      SchemaUpgrade again = schema.apply();
      assertThat(again.changed()).isFalse();
      assertThat(again.statements()).isZero();
      assertThat(schema.plan().isEmpty()).isTrue();
      assertThat(schema.check().state()).isEqualTo(SchemaStatus.State.CURRENT);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void theArchiveKeepsThePublishModeAndMessageGroup(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      SchemaInstaller.installIfMissing(ds, PREFIX);
      TxmsgStore store = SchemaMigrator.open(ds, PREFIX, false);
      Journal journal = new Journal(ds, store);
      JournalRow send = StoreFixtures.journalRow("a1");
      send.setPublishMode(PublishMode.SEND);
      send.setMessageGroup("g-1");
      new StoreTransactions(ds, store)
          .run(
              c -> {
                journal.insert(c, send, 1000);
                return null;
              });
      journal.markSent(List.of("a1"));
      Thread.sleep(20); // updated_at strictly before the archiver's "now"
      new Archiver(ds, store)
          .run(
              new Archiver.Policy(Duration.ZERO, null, null, Duration.ZERO, 10, false),
              AUDIT,
              b -> {});
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT publish_mode, message_group FROM " + PREFIX + "journal_archive")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("SEND");
        assertThat(rs.getString(2)).isEqualTo("g-1");
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anInterruptedUpgradeIsFinishedByRunningItAgain(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      installV1(ds, PREFIX);
      insertV1Row(ds, "e1", "PENDING", "k1");
      // The upgrade stopped after V2's first statement (MariaDB and H2 committed it implicitly):
      // the version table says V1, publish_mode exists, the rest of V2 does not.
      try (Connection c = ds.getConnection()) {
        Dialect d = Dialect.detect(c);
        List<String> upgrade = SchemaScripts.plan(d, PREFIX, migrator(db).check()).statements();
        assertThat(upgrade.get(2)).contains("ADD COLUMN publish_mode");
        for (String statement : upgrade.subList(0, 3)) {
          sql(ds, statement);
        }
      }
      SchemaStatus found = migrator(db).check();
      assertThat(found.installed()).isEqualTo(1);
      assertThat(found.versionRow()).isTrue();

      SchemaUpgrade upgrade = migrator(db).apply();
      assertThat(upgrade.from()).isEqualTo(1);
      assertThat(upgrade.to()).isEqualTo(6);
      assertThat(upgrade.alreadyApplied()).isEqualTo(1);
      assertThat(versionRow(ds)).isEqualTo(6);
      assertThat(journal(ds).get("e1")).containsEntry("publish_mode", "HALF_MESSAGE");
    }
  }

  /** A fresh install that stopped after k statements, for cut points across V1 and V2. */
  @ParameterizedTest
  @MethodSource(DB)
  void anInterruptedInstallIsFinishedByRunningItAgain(TestDatabase kind) throws Exception {
    Dialect dialect;
    List<String> reference;
    try (DatabaseFixture db = kind.open()) {
      SchemaInstaller.installIfMissing(db.dataSource(), PREFIX);
      try (Connection c = db.dataSource().getConnection()) {
        dialect = Dialect.detect(c);
      }
      reference = allColumns(db.dataSource());
    }
    List<String> plan = SchemaInstaller.statements(dialect, PREFIX);
    int v1End = 2 + SchemaScripts.version(dialect, PREFIX, 1).size(); // version table, row, V1
    for (int k : new int[] {1, 2, 5, v1End, v1End + 2, plan.size() - 1}) {
      try (DatabaseFixture db = kind.open()) {
        for (String statement : plan.subList(0, k)) {
          sql(db.dataSource(), statement);
        }
        SchemaUpgrade finished = migrator(db).apply();
        assertThat(finished.to()).as("cut after %d", k).isEqualTo(SchemaInstaller.VERSION);
        assertThat(finished.changed()).as("cut after %d", k).isTrue();
        assertThat(versionRow(db.dataSource())).isEqualTo(SchemaInstaller.VERSION);
        assertThat(allColumns(db.dataSource())).as("cut after %d", k).isEqualTo(reference);
      }
    }
  }

  /** table.column of every txmsg table, sorted. */
  static List<String> allColumns(DataSource ds) throws Exception {
    TreeSet<String> out = new TreeSet<>();
    try (Connection c = ds.getConnection()) {
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), "%", "%")) {
        while (rs.next()) {
          String table = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
          if (table.startsWith(PREFIX)) {
            out.add(table + "." + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
          }
        }
      }
    }
    assertThat(out).isNotEmpty();
    return new ArrayList<>(out);
  }

  @ParameterizedTest
  @MethodSource(DB)
  @Timeout(120)
  void instancesApplyingTogetherUpgradeOnceOnAnEmptyAndOnAV1Database(TestDatabase kind)
      throws Exception {
    for (boolean v1 : new boolean[] {false, true}) {
      try (DatabaseFixture db = kind.open()) {
        if (v1) {
          installV1(db.dataSource(), PREFIX);
          insertV1Row(db.dataSource(), "e1", "PENDING", "k1");
        }
        int instances = 3;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        List<SchemaUpgrade> results = new ArrayList<>();
        try {
          List<Future<SchemaUpgrade>> runs = new ArrayList<>();
          for (int i = 0; i < instances; i++) {
            // Each instance has its own store (its own MyBatis configuration), as separate
            // processes would.
            SchemaMigrator m = migrator(db);
            Callable<SchemaUpgrade> apply =
                () -> {
                  start.await();
                  return m.apply();
                };
            runs.add(pool.submit(apply));
          }
          start.countDown();
          for (Future<SchemaUpgrade> r : runs) {
            results.add(r.get(100, TimeUnit.SECONDS));
          }
        } finally {
          pool.shutdownNow();
        }
        assertThat(results).as("v1=" + v1).filteredOn(SchemaUpgrade::changed).hasSize(1);
        SchemaUpgrade winner = results.stream().filter(SchemaUpgrade::changed).findFirst().get();
        assertThat(winner.from()).isEqualTo(v1 ? 1 : 0);
        assertThat(winner.alreadyApplied()).isZero();
        assertThat(results)
            .filteredOn(r -> !r.changed())
            .allSatisfy(r -> assertThat(r.from()).isEqualTo(SchemaInstaller.VERSION));
        assertThat(versionRow(db.dataSource())).isEqualTo(SchemaInstaller.VERSION);
        if (v1) {
          assertThat(journal(db.dataSource()).get("e1"))
              .containsEntry("publish_mode", "HALF_MESSAGE");
        }
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  @Timeout(60)
  void anUpgradeWaitsForTheLockAndGivesUpWithAClearMessage(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      installV1(ds, PREFIX);
      TxmsgStore holder = TxmsgStore.detect(ds, PREFIX);
      // the version table exists before anyone locks (H2's lock is a row in it)
      sql(ds, SchemaScripts.versionTable(holder.dialect(), PREFIX).get(0));
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(true);
        Dialect.SchemaLock lock = holder.lockSchema(c, ds, Duration.ofSeconds(5));
        assertThat(lock).isNotNull();
        try {
          SchemaMigrator waiting =
              new SchemaMigrator(ds, TxmsgStore.detect(ds, PREFIX), Duration.ofSeconds(1));
          assertThatThrownBy(waiting::apply)
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("held the txmsg schema lock for prefix txmsg_");
          // Another prefix has a lock of its own.
          installV1(ds, "other_");
          assertThat(
                  new SchemaMigrator(ds, TxmsgStore.detect(ds, "other_"), Duration.ofSeconds(1))
                      .apply()
                      .changed())
              .isTrue();
        } finally {
          lock.close();
        }
      }
      assertThat(migrator(db).apply().changed()).isTrue();
      assertThat(versionRow(ds)).isEqualTo(6);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void startupRefusesAMissingAnOlderAndANewerSchemaSayingWhatToRun(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      assertThatThrownBy(() -> SchemaMigrator.open(ds, PREFIX, false))
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining("not installed")
          .hasMessageContaining("txmsg schema apply --jdbc-url <url> --prefix txmsg_")
          .hasMessageContaining("autoCreateSchema");

      installV1(ds, PREFIX);
      assertThatThrownBy(() -> SchemaMigrator.open(ds, PREFIX, false))
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining("at V1")
          .hasMessageContaining("txmsg_schema")
          .hasMessageContaining("this release needs V6")
          .hasMessageContaining("txmsg schema apply --jdbc-url <url> --prefix txmsg_")
          .satisfies(
              e ->
                  assertThat(((SchemaVersionException) e).status().state())
                      .isEqualTo(SchemaStatus.State.OLDER));

      // autoCreateSchema upgrades instead; then a plain start works.
      SchemaMigrator.open(ds, PREFIX, true);
      assertThat(SchemaMigrator.open(ds, PREFIX, false).prefix()).isEqualTo(PREFIX);

      sql(ds, "UPDATE txmsg_schema SET version = 99 WHERE name = 'txmsg'");
      for (boolean create : new boolean[] {false, true}) {
        assertThatThrownBy(() -> SchemaMigrator.open(ds, PREFIX, create))
            .as("createSchema=" + create)
            .isInstanceOf(SchemaVersionException.class)
            .hasMessageContaining("at V99 according to txmsg_schema")
            .hasMessageContaining("this release understands up to V6")
            .hasMessageContaining("upgrade txmsg");
      }
      assertThatThrownBy(() -> migrator(db).plan()).isInstanceOf(SchemaVersionException.class);
      assertThat(versionRow(ds)).isEqualTo(99);
    }
  }

  @Test
  @DatabaseIndependent
  void thePlanForAnEmptyDatabaseIsTheVersionTableThenEachVersionAndItsRecord() {
    for (Dialect d : Dialect.values()) {
      SchemaPlan plan = SchemaScripts.plan(d, PREFIX, SchemaStatus.empty(PREFIX));
      assertThat(plan.steps())
          .extracting(SchemaPlan.Step::title)
          .containsExactly(
              "the schema-version table txmsg_schema", "V1", "V2", "V3", "V4", "V5", "V6");
      assertThat(plan.steps().get(0).recordVersion())
          .startsWith("INSERT INTO txmsg_schema")
          .contains("'txmsg', 0,");
      assertThat(plan.steps().get(1).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 1")
          .endsWith("AND version = 0");
      assertThat(plan.steps().get(2).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 2")
          .endsWith("AND version = 1");
      assertThat(plan.steps().get(3).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 3")
          .endsWith("AND version = 2");
      assertThat(plan.steps().get(4).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 4")
          .endsWith("AND version = 3");
      assertThat(plan.steps().get(5).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 5")
          .endsWith("AND version = 4");
      assertThat(plan.steps().get(6).recordVersion())
          .startsWith("UPDATE txmsg_schema SET version = 6")
          .endsWith("AND version = 5");
      assertThat(SchemaInstaller.statements(d, PREFIX)).isEqualTo(plan.statements());
      // The rendered script is the same statements again (what `txmsg schema print` shows).
      assertThat(SchemaScripts.read(renderedResource(plan), PREFIX)).isEqualTo(plan.statements());

      SchemaPlan fromV1 = SchemaScripts.plan(d, PREFIX, new SchemaStatus(PREFIX, 1, true, true));
      assertThat(fromV1.steps())
          .extracting(SchemaPlan.Step::title)
          .containsExactly("V2", "V3", "V4", "V5", "V6");
      // A database installed before schema versions gets the table and its V1 row first.
      SchemaPlan legacy = SchemaScripts.plan(d, PREFIX, new SchemaStatus(PREFIX, 1, false, false));
      assertThat(legacy.steps())
          .extracting(SchemaPlan.Step::title)
          .containsExactly("the schema-version table txmsg_schema", "V2", "V3", "V4", "V5", "V6");
      assertThat(legacy.steps().get(0).recordVersion()).contains("'txmsg', 1,");
      assertThat(fromV1.render())
          .contains(
              "V1 -> V6",
              SchemaScripts.resource(d, 2),
              SchemaScripts.resource(d, 3),
              SchemaScripts.resource(d, 4),
              SchemaScripts.resource(d, 5),
              SchemaScripts.resource(d, 6));
      SchemaPlan current = SchemaScripts.plan(d, PREFIX, new SchemaStatus(PREFIX, 6, true, true));
      assertThat(current.isEmpty()).isTrue();
      assertThat(current.render()).contains("nothing to do");
    }
  }

  /** Writes a rendered plan where {@link SchemaScripts#read} finds it (the class path's target). */
  private static String renderedResource(SchemaPlan plan) {
    try {
      java.nio.file.Path dir =
          java.nio.file.Path.of(
                  SchemaMigrationTest.class.getResource("SchemaMigrationTest.class").toURI())
              .getParent(); // io/txmsg/store/schema of the test classes
      java.nio.file.Files.createDirectories(dir);
      java.nio.file.Files.writeString(
          dir.resolve("rendered-" + plan.dialect().id() + ".sql"), plan.render());
      return "schema/rendered-" + plan.dialect().id() + ".sql";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
