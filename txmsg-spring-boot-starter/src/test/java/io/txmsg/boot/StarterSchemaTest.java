package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaScripts;
import io.txmsg.store.schema.SchemaStatus;
import io.txmsg.store.schema.SchemaVersionException;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.Transport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The schema version check and in-place upgrade as a Boot application meets them, on every enabled
 * database: {@code auto-create-schema} installs or upgrades (V1 rows kept), and without it an older
 * or newer schema stops the application before anything is written, with Boot's failure report
 * naming the properties or the command. The upgrade itself is tested in depth in the store's
 * SchemaMigrationTest; here the starter's wiring of it.
 */
class StarterSchemaTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** A Boot application over the fixture's database (not closed with the context). */
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
            "txmsg.producer.store-id=schema-test",
            // the schema managed without Flyway here (Flyway is on this class path:
            // StarterFlywayTest)
            "txmsg.flyway.enabled=false",
            "txmsg.liquibase.enabled=false");
  }

  private static String[] autoCreate() {
    return new String[] {
      "txmsg.producer.auto-create-schema=true", "txmsg.consumer.auto-create-schema=true"
    };
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aFreshDatabaseGetsTheCurrentSchemaWithAutoCreateSchema(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db)
          .withPropertyValues(autoCreate())
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
                assertThat(version(db.dataSource())).isEqualTo(supported());
              });
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aV1DatabaseIsUpgradedInPlaceAtStartupKeepingItsRows(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      installV1WithARow(db.dataSource());

      runner(db)
          .withPropertyValues(autoCreate())
          .run(
              ctx -> {
                assertThat(ctx).hasNotFailed();
                assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
                assertThat(version(db.dataSource())).isEqualTo(supported());
                // The V1 row is still there, read through a column the upgrade added.
                assertThat(
                        strings(
                            db.dataSource(),
                            "SELECT event_id, status, publish_mode FROM txmsg_journal"))
                    .containsExactly("v1-event", "PENDING", "HALF_MESSAGE");
              });
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anOlderSchemaWithoutAutoCreateStopsStartupAndTheReportSaysWhatToSetOrRun(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      installV1WithARow(db.dataSource());

      runner(db)
          .run(
              ctx -> {
                assertThat(ctx).hasFailed();
                SchemaVersionException refused = schemaFailure(ctx.getStartupFailure());
                assertThat(refused.status().state()).isEqualTo(SchemaStatus.State.OLDER);
                assertThat(refused.status().installed()).isEqualTo(1);
                FailureAnalysis report =
                    Contexts.analyze(ctx.getStartupFailure(), SchemaVersionException.class);
                assertThat(report.getDescription()).contains("V1").contains("txmsg_");
                assertThat(report.getAction())
                    .contains("txmsg schema apply --jdbc-url <url> --prefix txmsg_")
                    .contains("txmsg.producer.auto-create-schema=true")
                    .contains("txmsg.consumer.auto-create-schema=true");
              });
      // Refused before any side effect: still V1, no version table, the row untouched.
      assertThat(tables(db.dataSource())).doesNotContain("txmsg_schema");
      assertThat(strings(db.dataSource(), "SELECT event_id, status FROM txmsg_journal"))
          .containsExactly("v1-event", "PENDING");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aNewerSchemaStopsStartupEvenWithAutoCreateAndIsNotTouched(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      runner(db).withPropertyValues(autoCreate()).run(ctx -> assertThat(ctx).hasNotFailed());
      int newer = supported() + 1;
      update(
          db.dataSource(), "UPDATE txmsg_schema SET version = " + newer + " WHERE name = 'txmsg'");

      runner(db)
          .withPropertyValues(autoCreate())
          .run(
              ctx -> {
                assertThat(ctx).hasFailed();
                SchemaVersionException refused = schemaFailure(ctx.getStartupFailure());
                assertThat(refused.status().state()).isEqualTo(SchemaStatus.State.NEWER);
                FailureAnalysis report =
                    Contexts.analyze(ctx.getStartupFailure(), SchemaVersionException.class);
                assertThat(report.getAction())
                    .contains("Upgrade txmsg to a release that knows schema V" + newer);
              });
      assertThat(version(db.dataSource())).isEqualTo(newer);
    }
  }

  private static int supported() {
    return SchemaStatus.empty("txmsg_").supported();
  }

  /** What a release before schema versions left: the V1 tables and one pending row. */
  private static void installV1WithARow(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      for (String sql : SchemaScripts.version(Dialect.detect(c), "txmsg_", 1)) {
        s.execute(sql);
      }
    }
    try (Connection c = ds.getConnection();
        PreparedStatement p =
            c.prepareStatement(
                "INSERT INTO txmsg_journal (event_id, attempt_id, store_id, aggregate_type,"
                    + " aggregate_id, aggregate_version, event_type, event_version, destination,"
                    + " payload, payload_hash, status, retry_count, next_retry_at, created_at,"
                    + " updated_at) VALUES ('v1-event', 'att-1', 'default', 'Order', 'o-1', 1,"
                    + " 'Paid', 1, 'pay', ?, ?, 'PENDING', 0, LOCALTIMESTAMP, LOCALTIMESTAMP,"
                    + " LOCALTIMESTAMP)")) {
      c.setAutoCommit(true);
      p.setBytes(1, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      p.setString(2, "0".repeat(64));
      p.executeUpdate();
    }
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
        out.add(rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out;
  }

  private static void update(DataSource ds, String sql) throws Exception {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.executeUpdate(sql);
    }
  }

  private static SchemaVersionException schemaFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SchemaVersionException e) {
        return e;
      }
    }
    throw new AssertionError("startup failed for another reason", failure);
  }
}
