package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The runbook's commands against a database filled by a real producer and two consumer groups on
 * the embedded broker: trace, dlq, replay (dry run, canary stop, rate, audit, twice) and requeue.
 */
class OperationsTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** The payload. */
  public record Paid(String account, int amount) {}

  @ParameterizedTest
  @MethodSource(DB)
  void traceShowsEveryGroupAndAReplayIsAuditedRateLimitedStoppedByItsCanaryAndAppliedOnce(
      TestDatabase kind, @TempDir Path dir) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String topic = "ops-" + UUID.randomUUID().toString().substring(0, 8);
    String points = "points-" + topic;
    String audit = "audit-" + topic;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(points, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    mq.createConsumerGroup(audit, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    AtomicBoolean fixed = new AtomicBoolean();
    Map<String, Integer> applied = new ConcurrentHashMap<>();
    List<Long> replayTimes = new CopyOnWriteArrayList<>();
    try (DatabaseFixture db = kind.open()) {
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
      }
      try (TxProducer producer =
              TxProducer.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxProducerSettings()
                          .connection(TestTransport.GRPC.connection(mq))
                          .topics(topic)
                          .storeId("ops-" + kind.id())
                          .autoCreateSchema(true))
                  .build();
          TxConsumers consumers =
              TxConsumers.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxConsumerSettings()
                          .connection(TestTransport.GRPC.connection(mq))
                          .replayWorker(true, Duration.ofMillis(200))
                          .group(ConsumerGroupConfig.of(points).subscribe(topic))
                          .group(ConsumerGroupConfig.of(audit).subscribe(topic)))
                  .handler(
                      HandlerDefinition.of(
                          points,
                          topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (e, ctx) -> {
                            if (e.amount() < 0 && !fixed.get()) {
                              throw new PermanentConsumeException("negative amount " + e.amount());
                            }
                            if (ctx.replay()) {
                              replayTimes.add(System.nanoTime());
                            }
                            applied.merge(points + ctx.eventId(), 1, Integer::sum);
                          }))
                  .handler(
                      HandlerDefinition.of(
                          audit,
                          topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (e, ctx) -> applied.merge(audit + ctx.eventId(), 1, Integer::sum)))
                  .build()) {
        Cli cli = new Cli(db, dir);
        for (int n = 0; n < 12; n++) {
          int i = n;
          int amount = i < 10 ? -i - 1 : i; // ten events the points handler rejects until fixed
          producer
              .template()
              .execute(
                  message(topic, "ev-" + i, amount),
                  ctx -> pay(ctx.connection(), "ev-" + i, amount));
        }
        await(
            () ->
                count(db, "SELECT COUNT(*) FROM txmsg_dead_letter WHERE status = 'PARKED'") == 10
                    && count(db, "SELECT COUNT(*) FROM txmsg_consume_log WHERE status = 'SUCCESS'")
                        == 14);

        Cli.Run trace = cli.run("trace", "ev-0");
        assertThat(trace.exitCode()).isZero();
        assertThat(trace.out())
            .contains("journal", points, audit, "PARKED", "SUCCESS", "negative amount -1");
        Cli.Run byKey = cli.run("trace", "order-ev-0", "--json");
        assertThat(byKey.exitCode()).isZero();
        assertThat(byKey.out()).contains(points).contains(audit);

        Cli.Run dry =
            cli.run("replay", "--group", points, "--dry-run", "--reason", "check", "--json");
        assertThat(dry.exitCode()).isZero();
        assertThat(dry.json().get("selected").asInt()).isEqualTo(10);
        assertThat(count(db, "SELECT COUNT(*) FROM txmsg_dead_letter WHERE status = 'PARKED'"))
            .isEqualTo(10);

        // Before the fix: the canary of 2 fails and the request stops; rows go back to PARKED.
        String stopped =
            requestId(
                cli.run(
                    "replay",
                    "--group",
                    points,
                    "--canary",
                    "2",
                    "--rate",
                    "50",
                    "--reason",
                    "try before fix",
                    "--operator",
                    "alice",
                    "--json"));
        JsonNode s1 = awaitFinished(cli, stopped);
        assertThat(s1.get("status").asText()).isEqualTo("STOPPED");
        assertThat(s1.get("stopped_reason").asText()).contains("canary failed: 2 of the first 2");
        assertThat(s1.get("operator").asText()).isEqualTo("alice");
        assertThat(count(db, "SELECT COUNT(*) FROM txmsg_dead_letter WHERE status = 'PARKED'"))
            .isEqualTo(10);

        // After the fix: all ten at 5/s, with their original eventIds.
        fixed.set(true);
        String done =
            requestId(
                cli.run(
                    "replay",
                    "--group",
                    points,
                    "--rate",
                    "5",
                    "--parked-reason",
                    "PERMANENT_ERROR",
                    "--canary",
                    "2",
                    "--reason",
                    "bug 42 fixed",
                    "--json"));
        JsonNode s2 = awaitFinished(cli, done);
        assertThat(s2.get("status").asText()).isEqualTo("DONE");
        assertThat(s2.get("succeeded").asInt()).isEqualTo(10);
        assertThat(s2.get("failed").asInt()).isZero();
        double seconds = (replayTimes.get(replayTimes.size() - 1) - replayTimes.get(0)) / 1e9;
        // 9 intervals of 200 ms (1.8 s) minus the first replay's lateness; unthrottled would be
        // ~0.1 s.
        assertThat(seconds).as("10 replays at 5/s").isGreaterThanOrEqualTo(1.4);
        for (int i = 0; i < 10; i++) {
          assertThat(applied.get(points + "ev-" + i)).isEqualTo(1);
        }
        assertThat(count(db, "SELECT COUNT(*) FROM txmsg_consume_log WHERE status = 'SUCCESS'"))
            .isEqualTo(24);
        assertThat(
                count(
                    db,
                    "SELECT COUNT(*) FROM txmsg_dead_letter WHERE status = 'REPLAYED' AND replay_request_id = '"
                        + done
                        + "'"))
            .isEqualTo(10);

        // Replayed twice: nothing left to select, nothing applied again.
        Cli.Run again = cli.run("replay", "--group", points, "--reason", "again", "--json");
        assertThat(again.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
        assertThat(again.json().get("selected").asInt()).isZero();
        Thread.sleep(500);
        assertThat(applied.values()).allMatch(n -> n == 1);
        assertThat(applied).hasSize(24);
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void requeueSendsADeadRowAgainConsumersAbsorbItAndARowOlderThanTheRetentionIsRefused(
      TestDatabase kind, @TempDir Path dir) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String topic = "rq-" + UUID.randomUUID().toString().substring(0, 8);
    String points = "points-" + topic;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(points, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    Map<String, Integer> applied = new ConcurrentHashMap<>();
    try (DatabaseFixture db = kind.open()) {
      try (Connection c = db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)");
      }
      try (TxProducer producer =
              TxProducer.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxProducerSettings()
                          .connection(TestTransport.GRPC.connection(mq))
                          .topics(topic)
                          .storeId("rq-" + kind.id())
                          .reconcileInterval(Duration.ofMillis(200))
                          .autoCreateSchema(true))
                  .build();
          TxConsumers consumers =
              TxConsumers.builder()
                  .dataSource(db.dataSource())
                  .settings(
                      new TxConsumerSettings()
                          .connection(TestTransport.GRPC.connection(mq))
                          .group(ConsumerGroupConfig.of(points).subscribe(topic)))
                  .handler(
                      HandlerDefinition.of(
                          points,
                          topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (e, ctx) -> applied.merge(ctx.eventId(), 1, Integer::sum)))
                  .build()) {
        Cli cli = new Cli(db, dir);
        for (String id : List.of("dead-1", "dead-old")) {
          producer.template().execute(message(topic, id, 1), ctx -> pay(ctx.connection(), id, 1));
        }
        await(
            () ->
                applied.size() == 2
                    && count(db, "SELECT COUNT(*) FROM txmsg_journal WHERE status = 'SENT'") == 2);
        // Incidents leave rows DEAD (e.g. the topic was deleted); one of them is a month old.
        update(db, "UPDATE txmsg_journal SET status = 'DEAD', last_error_code = 'TOPIC_NOT_FOUND'");
        update(
            db,
            "UPDATE txmsg_journal SET created_at = created_at - INTERVAL '30' DAY WHERE event_id = 'dead-old'");

        Cli.Run dead = cli.run("journal", "list", "--status", "DEAD", "--json");
        assertThat(dead.exitCode()).isZero();
        assertThat(dead.out()).contains("dead-1", "dead-old", "TOPIC_NOT_FOUND");
        Cli.Run rq =
            cli.run(
                "journal",
                "requeue",
                "--ids",
                "dead-1,dead-old",
                "--reason",
                "topic restored",
                "--operator",
                "bob",
                "--json");
        assertThat(rq.exitCode()).as(rq.all()).isEqualTo(TxmsgCli.FINDINGS); // one refused
        assertThat(rq.json().get("requeued").asInt()).isEqualTo(1);
        assertThat(rq.json().get("refused").asInt()).isEqualTo(1);
        String audit = rq.json().get("request_id").asText();
        assertThat(
                count(
                    db,
                    "SELECT COUNT(*) FROM txmsg_replay_audit WHERE request_id = '"
                        + audit
                        + "' AND operator = 'bob' AND succeeded = 1 AND failed = 1"))
            .isEqualTo(1);

        // The reconciler publishes dead-1 again (after republishAfter); the consumer absorbs it.
        update(db, "UPDATE txmsg_journal SET next_retry_at = created_at WHERE event_id = 'dead-1'");
        await(
            () ->
                count(
                        db,
                        "SELECT COUNT(*) FROM txmsg_journal WHERE event_id = 'dead-1' AND status = 'SENT'")
                    == 1);
        Thread.sleep(2000);
        assertThat(applied).containsEntry("dead-1", 1).containsEntry("dead-old", 1);
        assertThat(
                count(
                    db,
                    "SELECT COUNT(*) FROM txmsg_journal WHERE event_id = 'dead-old' AND status = 'DEAD'"))
            .isEqualTo(1);
        Cli.Run missingReason = cli.run("journal", "requeue", "--ids", "dead-old");
        assertThat(missingReason.exitCode()).isEqualTo(TxmsgCli.USAGE);
        assertThat(missingReason.err()).doesNotContain("Exception");
      }
    }
  }

  private static void update(DatabaseFixture db, String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  private static TxMessage message(String topic, String id, int amount) {
    return TxMessage.builder()
        .eventId(id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .businessKey("order-" + id)
        .payload(
            ("{\"account\":\"a-" + id + "\",\"amount\":" + amount + "}")
                .getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static Object pay(Connection c, String id, int amount) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, amount);
      ps.executeUpdate();
    }
    return null;
  }

  private static String requestId(Cli.Run run) {
    assertThat(run.exitCode()).as(run.all()).isZero();
    return run.json().get("request_id").asText();
  }

  private static JsonNode awaitFinished(Cli cli, String requestId) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      Cli.Run r = cli.run("replay", "--show", requestId, "--json");
      JsonNode n = r.json();
      String status = n.get("status").asText();
      if (status.equals("DONE") || status.equals("STOPPED")) {
        return n;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("replay " + requestId + " did not finish");
  }

  static int count(DatabaseFixture db, String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void await(Check check) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        if (check.ok()) {
          return;
        }
      } catch (Exception e) {
        // not yet
      }
      if (System.nanoTime() > until) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(100);
    }
  }

  @FunctionalInterface
  interface Check {
    boolean ok() throws Exception;
  }
}
