package io.txmsg.cdc;

import static io.txmsg.cdc.CdcFixture.LOG_DATABASES;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.producer.Reconciler;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A TxProducer in deliveryMode CDC with the relay running: the relay sends the producer's rows (the
 * reconciler, past cdcFallbackAfter, finds nothing to claim), and end to end a consumer runtime
 * handler applies each event once.
 *
 * <p>Here rather than in txmsg-cdc, whose tests then need neither runtime. Its methods run one
 * after another, as every test of txmsg-cdc does (one relay reading a database's log at a time);
 * the class runs beside this module's other classes, none of which reads a log.
 */
@EmbeddedRocketMQTest
@Execution(ExecutionMode.SAME_THREAD)
class CdcProducerTest {
  private static final Duration FALLBACK = Duration.ofSeconds(3);

  private final EmbeddedRocketMQ mq;

  CdcProducerTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  /** The payload of the test's events. */
  public record Paid(String order, int amount) {}

  private static TxProducer producer(CdcFixture f, String topic) {
    TxProducer p =
        TxProducer.builder()
            .dataSource(f.db.dataSource())
            .transport(f.transport.transport())
            .settings(
                new TxProducerSettings()
                    .storeId(f.storeId)
                    .topics(topic)
                    .deliveryMode(DeliveryMode.CDC)
                    .cdcFallbackAfter(FALLBACK)
                    // The test runs the reconciler's rounds itself.
                    .reconcilerEnabled(false))
            .build();
    f.closeLater(p);
    return p;
  }

  private static TxMessage message(String topic, String order, int amount) {
    return TxMessage.builder()
        .eventId("evt-" + UUID.randomUUID())
        .topic(topic)
        .eventType("OrderPaid")
        .aggregate("Order", order, 1)
        .payload(
            ("{\"order\":\"" + order + "\",\"amount\":" + amount + "}")
                .getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void withTheRelayRunningTheRelaySendsCdcRowsAndTheReconcilerClaimsNone(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      f.started(f.relay(s -> s).build());
      TxProducer producer = producer(f, topic);

      List<JournalRow> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        TxResult<Object> r = producer.template().execute(message(topic, "o-" + i, i), ctx -> null);
        assertThat(r.brokerAcknowledged()).isFalse();
        JournalRow row = f.row(r.eventId());
        assertThat(row.getPublishMode()).isEqualTo(PublishMode.CDC);
        rows.add(row);
      }
      f.awaitDelivered(rows, Duration.ofSeconds(60));
      f.awaitSent(rows, Duration.ofSeconds(30));

      // Past every row's fallback time, the reconciler finds nothing: the relay recorded each SENT.
      Instant due = rows.stream().map(JournalRow::getNextRetryAt).max(Instant::compareTo).get();
      CdcFixture.await(
          "the rows' fallback time", () -> dbNow(f).isAfter(due), Duration.ofSeconds(30));
      Reconciler.Round round = producer.reconciler().runOnce();
      assertThat(round.claimed()).as("rows the reconciler claimed").isZero();
      for (JournalRow row : rows) {
        JournalRow stored = f.row(row.getEventId());
        assertThat(stored.getStatus()).isEqualTo(JournalStatus.SENT);
        assertThat(f.delivered.get(row.getEventId()))
            .as("deliveries of " + row.getEventId())
            .hasSize(1);
        assertThat(stored.getBrokerMessageId())
            .as("sent by the relay, once")
            .isEqualTo(f.delivered.get(row.getEventId()).get(0).messageId());
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aCdcProducerAndTheRelayDeliverEachEventOnceToAConsumerHandler(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      String group = "cdc-points-" + f.suffix;
      try (Connection c = f.db.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE points (event_id VARCHAR(64) PRIMARY KEY, order_id VARCHAR(64) NOT NULL,"
                + " amount INT NOT NULL)");
      }
      mq.createConsumerGroup(group, 5, Duration.ofMillis(200), Duration.ofMillis(500));
      Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
      TxConsumers consumers =
          TxConsumers.builder()
              .dataSource(f.db.dataSource())
              .transport(f.transport.transport())
              .settings(
                  new TxConsumerSettings().group(ConsumerGroupConfig.of(group).subscribe(topic)))
              .handler(
                  HandlerDefinition.of(
                      group,
                      topic,
                      "OrderPaid",
                      Paid.class,
                      (event, ctx) -> {
                        calls
                            .computeIfAbsent(ctx.eventId(), k -> new AtomicInteger())
                            .incrementAndGet();
                        try (PreparedStatement ps =
                            ctx.connection()
                                .prepareStatement(
                                    "INSERT INTO points (event_id, order_id, amount) VALUES (?, ?, ?)")) {
                          ps.setString(1, ctx.eventId());
                          ps.setString(2, event.order());
                          ps.setInt(3, event.amount());
                          ps.executeUpdate();
                        }
                      }))
              .build();
      f.closeLater(consumers);
      mq.awaitSubscribed(group, topic, Duration.ofSeconds(30));
      f.started(f.relay(s -> s).build());
      TxProducer producer = producer(f, topic);

      List<String> eventIds = new ArrayList<>();
      for (int i = 1; i <= 20; i++) {
        TxMessage m = message(topic, "o-" + i, i);
        eventIds.add(producer.template().execute(m, ctx -> null).eventId());
      }
      CdcFixture.await(
          "20 events applied by the handler",
          () -> count(f, "SELECT COUNT(*) FROM points") == 20,
          Duration.ofSeconds(90));
      for (int i = 0; i < eventIds.size(); i++) {
        String id = eventIds.get(i);
        assertThat(
                count(
                    f,
                    "SELECT COUNT(*) FROM points WHERE event_id = '"
                        + id
                        + "' AND order_id = 'o-"
                        + (i + 1)
                        + "' AND amount = "
                        + (i + 1)))
            .as("applied " + id)
            .isEqualTo(1);
        assertThat(f.row(id).getStatus()).isIn(JournalStatus.PENDING, JournalStatus.SENT);
      }
      f.awaitSent(
          eventIds.stream()
              .map(
                  id -> {
                    try {
                      return f.row(id);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  })
              .toList(),
          Duration.ofSeconds(30));
      assertThat(calls.keySet()).containsExactlyInAnyOrderElementsOf(eventIds);
    }
  }

  private static long count(CdcFixture f, String sql) {
    try (Connection c = f.db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Instant dbNow(CdcFixture f) {
    String sql =
        f.kind == TestDatabase.MARIADB
            ? "SELECT NOW(3)"
            : "SELECT CAST(statement_timestamp() AS TIMESTAMP(3))";
    try (Connection c = f.db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
