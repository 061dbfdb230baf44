package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.InMemoryTransport;
import io.txmsg.transport.Transport;
import java.nio.charset.StandardCharsets;
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
 * Upgrading a service that ran without {@code txmsg.producer.store-id} (store "default") to a
 * starter that takes the store id from {@code spring.application.name}: unsent "default" rows stop
 * the start with a report naming both ids and the property, and nothing is written; setting the
 * property either way starts it; shared tables holding other services' rows start as before.
 */
class StoreIdCheckTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** A producer-only Boot application named "orders", over the fixture's database. */
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
            "spring.application.name=orders",
            "txmsg.broker.endpoints=proxy:8081",
            "txmsg.producer.topics=pay",
            "txmsg.producer.auto-create-schema=true",
            "txmsg.flyway.enabled=false",
            "txmsg.liquibase.enabled=false");
  }

  @ParameterizedTest
  @MethodSource(DB)
  void unsentRowsOfTheOldDefaultStopADefaultedStoreIdNamingBothIdsAndTheProperty(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      install(ds);
      row(ds, "e-pending", "default", "PENDING");
      row(ds, "e-dead", "default", "DEAD");
      row(ds, "e-sent", "default", "SENT");
      row(ds, "e-billing", "billing", "PENDING");

      runner(db)
          .run(
              ctx -> {
                assertThat(ctx).hasFailed();
                FailureAnalysis report =
                    Contexts.analyze(ctx.getStartupFailure(), InvalidTxmsgPropertyException.class);
                assertThat(report.getDescription())
                    .contains("txmsg.producer.store-id")
                    .contains("'orders'")
                    .contains("spring.application.name")
                    .contains("holds 2 rows of store 'default'")
                    .contains("txmsg.producer.store-id=default")
                    .contains("txmsg.producer.store-id=orders");
              });
      // Refused before any side effect: the rows are as they were.
      assertThat(strings(ds, "SELECT event_id, store_id, status FROM txmsg_journal ORDER BY 1"))
          .containsExactly(
              "e-billing",
              "billing",
              "PENDING",
              "e-dead",
              "default",
              "DEAD",
              "e-pending",
              "default",
              "PENDING",
              "e-sent",
              "default",
              "SENT");

      // Keeping the old id, or choosing the new one explicitly, starts it.
      for (String storeId : List.of("default", "orders")) {
        runner(db)
            .withPropertyValues("txmsg.producer.store-id=" + storeId)
            .run(
                ctx -> {
                  assertThat(ctx).as(storeId).hasNotFailed();
                  assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
                });
      }
    }
  }

  /**
   * Shared tables: rows of another service's store id, "default" rows that are all SENT, or
   * "default" rows beside unsent rows of this store id (it runs under the new id already, so they
   * are another service's) do not stop a defaulted store id; neither does an empty database.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void otherServicesRowsAndSentRowsLetADefaultedStoreIdStart(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      DataSource ds = db.dataSource();
      runner(db).run(ctx -> assertThat(ctx).as("empty database").hasNotFailed());

      row(ds, "e-billing", "billing", "RETRY");
      row(ds, "e-sent", "default", "SENT");
      runner(db).run(ctx -> assertThat(ctx).as("billing's and SENT rows").hasNotFailed());

      row(ds, "e-old", "default", "PENDING");
      row(ds, "e-mine", "orders", "PENDING");
      runner(db)
          .run(
              ctx -> {
                assertThat(ctx).as("unsent rows of both ids").hasNotFailed();
                assertThat(ctx.getBean(TxmsgProducerRuntime.class).producer()).isPresent();
              });
    }
  }

  private static void install(DataSource ds) throws Exception {
    try (Connection c = ds.getConnection()) {
      SchemaInstaller.install(c, Dialect.detect(c), "txmsg_");
    }
  }

  private static void row(DataSource ds, String eventId, String storeId, String status)
      throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement p =
            c.prepareStatement(
                "INSERT INTO txmsg_journal (event_id, attempt_id, store_id, aggregate_type,"
                    + " aggregate_id, aggregate_version, event_type, event_version, destination,"
                    + " payload, payload_hash, status, retry_count, next_retry_at, created_at,"
                    + " updated_at) VALUES (?, ?, ?, 'Order', ?, 1, 'Paid', 1, 'pay', ?, ?, ?, 0,"
                    + " LOCALTIMESTAMP, LOCALTIMESTAMP, LOCALTIMESTAMP)")) {
      c.setAutoCommit(true);
      p.setString(1, eventId);
      p.setString(2, "att-" + eventId);
      p.setString(3, storeId);
      p.setString(4, "o-" + eventId);
      p.setBytes(5, "{}".getBytes(StandardCharsets.UTF_8));
      p.setString(6, "0".repeat(64));
      p.setString(7, status);
      p.executeUpdate();
    }
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
}
