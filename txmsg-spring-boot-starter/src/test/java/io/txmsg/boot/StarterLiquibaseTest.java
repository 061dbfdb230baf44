package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.store.schema.SchemaStatus;
import io.txmsg.store.schema.SchemaVersionException;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.Transport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * With Liquibase on the class path and txmsg's Flyway migrations not running, the starter runs
 * txmsg's Liquibase changelog, with history tables of its own, before the runtimes start; a
 * database set up another way is synced to its version's tag; {@code txmsg.liquibase.enabled=false}
 * turns it off; with Flyway there too, only Flyway runs. On every enabled database.
 */
class StarterLiquibaseTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** An application with Liquibase and without Flyway. */
  private static ApplicationContextRunner runner(DatabaseFixture db) {
    DataSource shared = new DelegatingDataSource(db.dataSource());
    return new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.flywaydb"))
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                TxmsgAutoConfiguration.class))
        .withBean(DataSource.class, () -> shared)
        .withBean(Transport.class, InMemoryTransport::new)
        .withPropertyValues(
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.store-id=liquibase-test",
            "txmsg.consumer.groups.points.topics=pay");
  }

  private static List<String> allChangeSets() {
    List<String> out = new ArrayList<>();
    for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
      out.add("txmsg-V" + v);
      out.add("txmsg-V" + v + "-tag");
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aFreshDatabaseIsMigratedByTxmsgsLiquibaseBeforeTheRuntimesStart(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(ctx).hasSingleBean(TxmsgLiquibaseMigration.class);
                assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
                assertThat(ctx.getBean(TxmsgConsumersRuntime.class).consumers()).isPresent();
              });
      DataSource ds = db.dataSource();
      assertThat(version(ds)).isEqualTo(SchemaInstaller.VERSION);
      assertThat(changeSets(ds, "txmsg_")).containsExactlyElementsOf(allChangeSets());
      assertThat(tables(ds))
          .contains("liquibase_txmsg_changelog", "liquibase_txmsg_lock")
          .doesNotContain("databasechangelog", "flyway_txmsg_history");

      // A second start has nothing to run.
      runner(db).run(ctx -> assertThat(ctx).hasNotFailed());
      assertThat(changeSets(ds, "txmsg_")).containsExactlyElementsOf(allChangeSets());
    }
  }

  /**
   * Moving from txmsg's Flyway (here stopped at V1) to its Liquibase changelog: the changelog is
   * synced to tag txmsg-V1, V1 is not run again, and the later versions run.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aDatabaseSetUpAnotherWayIsSyncedToItsVersionsTagAndContinues(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      String vendor;
      try (Connection c = ds.getConnection()) {
        vendor = SchemaScripts.flywayLocation(Dialect.detect(c));
      }
      Flyway.configure()
          .dataSource(ds)
          .table("flyway_txmsg_history")
          .locations(vendor)
          .placeholders(Map.of("txmsg_prefix", "txmsg_"))
          .baselineOnMigrate(true)
          .baselineVersion("0")
          .target("1")
          .load()
          .migrate();
      assertThat(version(ds)).isEqualTo(1);

      runner(db).run(ctx -> assertThat(ctx).hasNotFailed());

      assertThat(version(ds)).isEqualTo(SchemaInstaller.VERSION);
      assertThat(changeSets(ds, "txmsg_")).containsExactlyElementsOf(allChangeSets());
      assertThat(
              strings(ds, "SELECT exectype FROM liquibase_txmsg_changelog WHERE id = 'txmsg-V2'"))
          .containsExactly("EXECUTED");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void switchedOffOrWithFlywayRunningTheChangelogDoesNotRun(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      runner(db)
          .withPropertyValues("txmsg.liquibase.enabled=false")
          .run(
              ctx -> {
                assertThat(ctx).hasFailed(); // no schema, no auto-create
                Throwable t = ctx.getStartupFailure();
                while (t != null && !(t instanceof SchemaVersionException)) {
                  t = t.getCause();
                }
                assertThat(t).isInstanceOf(SchemaVersionException.class);
                assertThat(((SchemaVersionException) t).status().state())
                    .isEqualTo(SchemaStatus.State.MISSING);
              });
      assertThat(tables(ds)).doesNotContain("liquibase_txmsg_changelog", "txmsg_journal");

      // Flyway on the class path as well: txmsg's Flyway runs, the changelog does not.
      runner(db)
          .withClassLoader(StarterLiquibaseTest.class.getClassLoader())
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(ctx).doesNotHaveBean(TxmsgLiquibaseMigration.class);
              });
      assertThat(tables(ds))
          .contains("flyway_txmsg_history", "txmsg_journal")
          .doesNotContain("liquibase_txmsg_changelog");
    }
  }

  private static Integer version(DataSource ds) throws Exception {
    List<String> v = strings(ds, "SELECT version FROM txmsg_schema WHERE name = 'txmsg'");
    return v.isEmpty() ? null : Integer.valueOf(v.get(0));
  }

  /** The changeset ids in a prefix's txmsg Liquibase history, in the order they were recorded. */
  private static List<String> changeSets(DataSource ds, String prefix) throws Exception {
    return strings(
        ds,
        "SELECT id FROM liquibase_" + prefix + "changelog ORDER BY orderexecuted, dateexecuted");
  }

  private static List<String> strings(DataSource ds, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          out.add(rs.getString(i));
        }
      }
    }
    return out;
  }

  private static List<String> tables(DataSource ds) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = ds.getConnection();
        ResultSet rs =
            c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
      while (rs.next()) {
        out.add(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }
}
