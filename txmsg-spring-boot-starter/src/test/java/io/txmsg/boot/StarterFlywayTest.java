package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

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
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * With Flyway on the class path the starter runs txmsg's Flyway migrations, with a history table of
 * their own, before the runtimes start (which then find the current schema without {@code
 * auto-create-schema}); a database set up without Flyway is baselined at the version it holds;
 * {@code txmsg.flyway.enabled=false} turns it off. On every enabled database.
 */
class StarterFlywayTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  private static ApplicationContextRunner runner(DatabaseFixture db) {
    DataSource shared = new DelegatingDataSource(db.dataSource());
    return new ApplicationContextRunner()
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
            "txmsg.producer.store-id=flyway-test",
            "txmsg.consumer.groups.points.topics=pay");
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aFreshDatabaseIsMigratedByTxmsgsFlywayBeforeTheRuntimesStart(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
                assertThat(ctx.getBean(TxmsgConsumersRuntime.class).consumers()).isPresent();
              });
      assertThat(version(db.dataSource())).isEqualTo(supported());
      List<String> expected = new ArrayList<>();
      for (int v = 1; v <= supported(); v++) {
        expected.add(v + " SQL applied");
      }
      assertThat(history(db.dataSource(), "txmsg_")).isEqualTo(expected);
      assertThat(tables(db.dataSource())).doesNotContain("flyway_schema_history");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aDatabaseSetUpWithoutFlywayIsBaselinedAtItsVersion(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .withPropertyValues(
              "txmsg.flyway.enabled=false",
              "txmsg.liquibase.enabled=false",
              "txmsg.producer.auto-create-schema=true",
              "txmsg.consumer.auto-create-schema=true")
          .run(ctx -> assertThat(ctx).hasNotFailed());
      assertThat(tables(db.dataSource())).doesNotContain("flyway_txmsg_history");

      runner(db).run(ctx -> assertThat(ctx).hasNotFailed());
      assertThat(history(db.dataSource(), "txmsg_"))
          .containsExactly(supported() + " BASELINE applied");
      assertThat(version(db.dataSource())).isEqualTo(supported());
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aTablePrefixGetsItsOwnHistory(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .withPropertyValues("txmsg.producer.table-prefix=shop_")
          .run(ctx -> assertThat(ctx).hasNotFailed());
      assertThat(tables(db.dataSource()))
          .contains(
              "flyway_shop_history", "shop_journal", "flyway_txmsg_history", "txmsg_consume_log");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void switchedOffNothingIsMigratedAndAMissingSchemaStopsTheStart(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .withPropertyValues("txmsg.flyway.enabled=false", "txmsg.liquibase.enabled=false")
          .run(
              ctx -> {
                assertThat(ctx).hasFailed();
                Throwable t = ctx.getStartupFailure();
                while (t != null && !(t instanceof SchemaVersionException)) {
                  t = t.getCause();
                }
                assertThat(t).isInstanceOf(SchemaVersionException.class);
                assertThat(((SchemaVersionException) t).status().state())
                    .isEqualTo(SchemaStatus.State.MISSING);
              });
      assertThat(tables(db.dataSource())).doesNotContain("flyway_txmsg_history", "txmsg_journal");
    }
  }

  private static int supported() {
    return SchemaStatus.empty("txmsg_").supported();
  }

  /** The txmsg Flyway history of a prefix, as Flyway reads it: "version type applied". */
  private static List<String> history(DataSource ds, String prefix) {
    List<String> out = new ArrayList<>();
    for (MigrationInfo i :
        Flyway.configure()
            .dataSource(ds)
            .table("flyway_" + prefix + "history")
            .locations("classpath:io/txmsg/store/flyway/none")
            .load()
            .info()
            .applied()) {
      out.add(
          i.getVersion() + " " + i.getType() + (i.getState().isFailed() ? " failed" : " applied"));
    }
    return out;
  }

  private static Integer version(DataSource ds) throws Exception {
    List<String> v = strings(ds, "SELECT version FROM txmsg_schema WHERE name = 'txmsg'");
    return v.isEmpty() ? null : Integer.valueOf(v.get(0));
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
