package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.TransportException;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.transport.BrokerConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The {@code txmsg} health indicator on H2: UP with the backlog as details however large it is,
 * DOWN only for a threshold that is configured and exceeded. The runtimes are off here: the
 * indicator reads the tables, which the test fills directly (a DEAD journal row takes days of
 * failed republishing to arise naturally).
 */
@DatabaseIndependent
class TxmsgHealthTest {
  private final ApplicationContextRunner runner =
      Contexts.runner()
          .withPropertyValues("txmsg.producer.enabled=false", "txmsg.consumer.enabled=false");

  @Test
  void emptyTablesAreUpWithZeroDetails() {
    runner.run(
        ctx -> {
          SchemaMigrator.open(ctx.getBean(DataSource.class), "txmsg_", true);
          Health h = health(ctx);
          assertThat(h.getStatus()).isEqualTo(Status.UP);
          assertThat(h.getDetails())
              .containsEntry("pending", 0L)
              .containsEntry("oldestUnconfirmedAge", "none")
              .containsEntry("deadRows", 0L)
              .containsEntry("parkedDeadLetters", Map.of())
              // no runtime settings, so no broker connection to probe
              .doesNotContainKey("broker");
        });
  }

  @Test
  void aBacklogIsReportedButStaysUpWithoutThresholds() {
    runner.run(
        ctx -> {
          fill(ctx);
          Health h = health(ctx);
          assertThat(h.getStatus()).isEqualTo(Status.UP);
          assertThat(h.getDetails())
              .containsEntry("pending", 2L)
              .containsEntry("deadRows", 1L)
              .containsEntry("parkedDeadLetters", Map.of("mail", 1L, "points", 2L))
              .doesNotContainKey("exceeded");
          // created 30 minutes ago by the database clock
          assertThat(java.time.Duration.parse((String) h.getDetails().get("oldestUnconfirmedAge")))
              .isBetween(java.time.Duration.ofMinutes(29), java.time.Duration.ofMinutes(31));
          assertThat(h.getDetails().toString()).doesNotContain("secret-payload");
        });
  }

  @Test
  void thresholdsThatAreNotExceededStayUp() {
    runner
        .withPropertyValues(
            "txmsg.health.down-when-dead-rows-above=1",
            "txmsg.health.down-when-parked-above=3",
            "txmsg.health.down-when-oldest-unconfirmed-above=1h")
        .run(
            ctx -> {
              fill(ctx);
              assertThat(health(ctx).getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void anExceededThresholdIsDownAndSaysWhich() {
    runner
        .withPropertyValues(
            "txmsg.health.down-when-dead-rows-above=0",
            "txmsg.health.down-when-oldest-unconfirmed-above=10m")
        .run(
            ctx -> {
              fill(ctx);
              Health h = health(ctx);
              assertThat(h.getStatus()).isEqualTo(Status.DOWN);
              assertThat(h.getDetails().get("exceeded"))
                  .asList()
                  .containsExactly(
                      "txmsg.health.down-when-dead-rows-above=0",
                      "txmsg.health.down-when-oldest-unconfirmed-above=PT10M");
              assertThat(h.getDetails()).containsEntry("deadRows", 1L);
            });
  }

  @Test
  void theParkedThresholdCountsEveryGroup() {
    runner
        .withPropertyValues("txmsg.health.down-when-parked-above=2")
        .run(
            ctx -> {
              fill(ctx);
              assertThat(health(ctx).getStatus()).isEqualTo(Status.DOWN);
            });
  }

  @Test
  void theBrokerDetailSaysWhichAddressesAcceptAConnection() throws Exception {
    try (ServerSocket open = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String up = "127.0.0.1:" + open.getLocalPort();
      String down = "127.0.0.1:" + closedPort();
      runner
          .withBean(TxConsumerSettings.class, () -> settings(up + ";" + down))
          .run(
              ctx -> {
                fill(ctx);
                Health h = health(ctx);
                assertThat(h.getStatus()).isEqualTo(Status.UP);
                Map<?, ?> broker = (Map<?, ?>) h.getDetails().get("broker");
                assertThat(broker.get("protocol")).isEqualTo("grpc");
                assertThat(broker.get("reachable")).isEqualTo(true);
                Map<?, ?> addresses = (Map<?, ?>) broker.get("addresses");
                assertThat(addresses.get(up)).isEqualTo("reachable");
                assertThat((String) addresses.get(down)).startsWith("unreachable: ");
              });
    }
  }

  @Test
  void anUnreachableBrokerIsUpUnlessTheOptInSaysDown() throws Exception {
    String down = "127.0.0.1:" + closedPort();
    ApplicationContextRunner unreachable =
        runner.withBean(TxConsumerSettings.class, () -> settings(down));
    unreachable.run(
        ctx -> {
          fill(ctx);
          Health h = health(ctx);
          assertThat(h.getStatus()).isEqualTo(Status.UP);
          assertThat(((Map<?, ?>) h.getDetails().get("broker")).get("reachable")).isEqualTo(false);
        });
    unreachable
        .withPropertyValues("txmsg.health.down-when-broker-unreachable=true")
        .run(
            ctx -> {
              // the same in-memory database as above: the tables are filled already
              Health h = health(ctx);
              assertThat(h.getStatus()).isEqualTo(Status.DOWN);
              assertThat(h.getDetails().get("exceeded"))
                  .asList()
                  .containsExactly("txmsg.health.down-when-broker-unreachable=true");
            });
    unreachable
        .withPropertyValues("txmsg.health.broker-probe=false")
        .run(ctx -> assertThat(health(ctx).getDetails()).doesNotContainKey("broker"));
  }

  private static TxConsumerSettings settings(String endpoints) {
    return new TxConsumerSettings().connection(BrokerConnection.endpoints(endpoints));
  }

  /** A port nothing listens on: bound, then released. */
  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void aRuntimeRetryingIsUpAndOneThatGaveUpIsDown() {
    runner.run(
        ctx -> {
          fill(ctx);
          DataSource ds = ctx.getBean(DataSource.class);
          Instant since = Instant.parse("2026-01-01T00:00:00Z");
          TxmsgRuntime retrying =
              runtime(
                  "producer",
                  new TxmsgRuntimeStatus(
                      TxmsgRuntimeStatus.State.RETRYING,
                      since,
                      3,
                      new TransportException("broker unreachable", null)));
          TxmsgRuntime running =
              runtime(
                  "consumers",
                  new TxmsgRuntimeStatus(TxmsgRuntimeStatus.State.RUNNING, since, 1, null));
          Health h =
              new TxmsgHealthIndicator(
                      ds, "txmsg_", new TxmsgHealthProperties(), null, List.of(retrying, running))
                  .health();
          assertThat(h.getStatus()).isEqualTo(Status.UP);
          assertThat(h.getDetails().get("producer"))
              .isEqualTo(
                  Map.of(
                      "state",
                      "RETRYING",
                      "since",
                      since.toString(),
                      "attempts",
                      3,
                      "lastFailure",
                      "io.txmsg.api.TransportException: broker unreachable"));
          assertThat(h.getDetails().get("consumers"))
              .isEqualTo(Map.of("state", "RUNNING", "since", since.toString(), "attempts", 1));

          TxmsgRuntime failed =
              runtime(
                  "producer",
                  new TxmsgRuntimeStatus(
                      TxmsgRuntimeStatus.State.FAILED,
                      since,
                      4,
                      new InvalidSettingsException("topics", "'pay' is a NORMAL topic")));
          Health down =
              new TxmsgHealthIndicator(
                      ds, "txmsg_", new TxmsgHealthProperties(), null, List.of(failed, running))
                  .health();
          assertThat(down.getStatus()).isEqualTo(Status.DOWN);
          assertThat(down.getDetails().get("exceeded")).asList().containsExactly("producer FAILED");
        });
  }

  private static TxmsgRuntime runtime(String name, TxmsgRuntimeStatus status) {
    return new TxmsgRuntime() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public TxmsgRuntimeStatus status() {
        return status;
      }
    };
  }

  @Test
  void withoutTablesTheStatusIsUnknownNotDown() {
    runner.run(ctx -> assertThat(health(ctx).getStatus()).isEqualTo(Status.UNKNOWN));
  }

  @Test
  void withoutBootsHealthApiThereIsNoIndicator() {
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("txmsgHealthIndicator"));
  }

  @Test
  void itCanBeSwitchedOff() {
    runner
        .withPropertyValues("management.health.txmsg.enabled=false")
        .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("txmsgHealthIndicator"));
  }

  private static Health health(AssertableApplicationContext ctx) {
    assertThat(ctx).hasNotFailed();
    return ctx.getBean("txmsgHealthIndicator", HealthIndicator.class).health();
  }

  /**
   * The schema through the store, then two unconfirmed journal rows (one 30 minutes old), a SENT
   * and a DEAD one, and PARKED, REPLAYED dead letters of two groups.
   */
  private static void fill(AssertableApplicationContext ctx) {
    DataSource ds = ctx.getBean(DataSource.class);
    SchemaMigrator.open(ds, "txmsg_", true);
    JdbcTemplate jdbc = new JdbcTemplate(ds);
    journal(jdbc, "e1", "PENDING", 30);
    journal(jdbc, "e2", "RETRY", 1);
    journal(jdbc, "e3", "SENT", 60);
    journal(jdbc, "e4", "DEAD", 120);
    deadLetter(jdbc, "points", "d1", "PARKED");
    deadLetter(jdbc, "points", "d2", "PARKED");
    deadLetter(jdbc, "mail", "d3", "PARKED");
    deadLetter(jdbc, "mail", "d4", "REPLAYED");
  }

  private static void journal(JdbcTemplate jdbc, String id, String status, int minutesAgo) {
    jdbc.update(
        "INSERT INTO txmsg_journal (event_id, attempt_id, store_id, aggregate_type, aggregate_id,"
            + " aggregate_version, event_type, event_version, destination, payload, payload_hash,"
            + " status, next_retry_at, created_at) VALUES (?, ?, 'default', 'Payment', ?, 1,"
            + " 'PaymentSucceeded', 1, 'pay', ?, ?, ?, LOCALTIMESTAMP(3),"
            + " DATEADD('MINUTE', ?, LOCALTIMESTAMP(3)))",
        id,
        id + "-a",
        id,
        "secret-payload".getBytes(),
        "0".repeat(64),
        status,
        -minutesAgo);
  }

  private static void deadLetter(JdbcTemplate jdbc, String group, String id, String status) {
    jdbc.update(
        "INSERT INTO txmsg_dead_letter (consumer_group, event_id, request_hash, kind, status,"
            + " reason, payload) VALUES (?, ?, ?, 'MESSAGE', ?, 'PERMANENT_ERROR', ?)",
        group,
        id,
        "0".repeat(64),
        status,
        "secret-payload".getBytes());
  }
}
