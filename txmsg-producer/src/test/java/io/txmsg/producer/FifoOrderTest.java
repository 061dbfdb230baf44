package io.txmsg.producer;

import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.Envelope;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Per-aggregate order on a FIFO topic (a row goes out only when no lower version of its aggregate
 * is unsent; docs/architecture.md, "Per-aggregate order"): two producer instances of one store,
 * concurrent commits on a few aggregates, versions assigned by the application under the
 * aggregate's row lock, events published with ctx.publish; an orderly consumer sees every
 * aggregate's versions in order. Some immediate sends find a lower version unsent and leave their
 * row to the reconciler, which keeps the order too.
 */
class FifoOrderTest {
  private static final String REAL = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";
  private static final int AGGREGATES = 4;
  private static final int THREADS_PER_PRODUCER = 3;
  private static final int COMMANDS_PER_THREAD = 8;

  @ParameterizedTest
  @MethodSource(REAL)
  void everyAggregatesVersionsArriveInOrderUnderTwoProducersAndConcurrentCommits(
      TestTransport transport, TestDatabase kind) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    TestTransport.Open open = transport.open();
    String fifo = "acct-" + UUID.randomUUID().toString().substring(0, 8);
    open.createTopic(fifo, TopicType.FIFO);
    String group = "ordered-" + fifo;
    mq.createConsumerGroup(group, 5, Duration.ofMillis(200), Duration.ofMillis(500), true);
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            open,
            TopicType.NORMAL,
            t -> t,
            s -> {
              Set<String> topics = new LinkedHashSet<>(s.topics());
              topics.add(fifo);
              s.topics(topics.toArray(String[]::new))
                  .deliveryMode(DeliveryMode.OUTBOX)
                  .publishAfter(Duration.ofMillis(700))
                  .reconcileInterval(Duration.ofMillis(200));
            })) {
      try (Connection c = h.db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE account (id VARCHAR(64) PRIMARY KEY, version BIGINT NOT NULL)");
        for (int a = 0; a < AGGREGATES; a++) {
          st.execute("INSERT INTO account (id, version) VALUES ('a" + a + "', 0)");
        }
      }
      Map<String, List<Long>> seen = new ConcurrentHashMap<>();
      try (Subscription sub =
              open.transport()
                  .subscribe(
                      new SubscriptionSpec(group, Map.of(fifo, "*"), 4),
                      m -> {
                        seen.computeIfAbsent(
                                m.properties().get(Envelope.AGGREGATE_ID),
                                k -> new CopyOnWriteArrayList<>())
                            .add(Long.parseLong(m.properties().get(Envelope.AGGREGATE_VERSION)));
                        return Verdict.ACK;
                      });
          TxProducer second =
              TxProducer.builder()
                  .dataSource(h.db.dataSource())
                  .transport(open.transport())
                  .settings(settingsLike(h, fifo))
                  .build()) {
        mq.awaitSubscribed(group, fifo, Duration.ofSeconds(30));
        List<TxProducer> producers = List.of(h.txmsg, second);
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_PRODUCER);
        List<Future<Integer>> done = new ArrayList<>();
        for (TxProducer p : producers) {
          for (int t = 0; t < THREADS_PER_PRODUCER; t++) {
            done.add(pool.submit(() -> commands(h, p, fifo)));
          }
        }
        int committed = 0;
        for (Future<Integer> f : done) {
          committed += f.get();
        }
        pool.shutdown();
        assertThat(committed).isEqualTo(2 * THREADS_PER_PRODUCER * COMMANDS_PER_THREAD);
        Map<String, Long> finalVersions = versions(h);
        assertThat(
                ProducerHarness.await(
                    Duration.ofSeconds(90),
                    () ->
                        finalVersions.entrySet().stream()
                            .allMatch(
                                e ->
                                    seen.getOrDefault(e.getKey(), List.of())
                                        .contains(e.getValue()))))
            .as("every aggregate's last version is delivered")
            .isTrue();
        for (Map.Entry<String, Long> e : finalVersions.entrySet()) {
          // Duplicates (a reconciler send racing a slow immediate one) are allowed; the first
          // delivery of each version must come in version order, with none missing.
          List<Long> firstSeen = new ArrayList<>(new LinkedHashSet<>(seen.get(e.getKey())));
          List<Long> expected = new ArrayList<>();
          for (long v = 1; v <= e.getValue(); v++) {
            expected.add(v);
          }
          assertThat(firstSeen).as("versions of " + e.getKey()).containsExactlyElementsOf(expected);
        }
        JournalRow any = h.journal("acct-a0-1");
        assertThat(any.getMessageGroup())
            .as("default group: the aggregate")
            .isEqualTo("Account:a0");
      }
    }
  }

  private static TxProducerSettings settingsLike(ProducerHarness h, String fifo) {
    return new TxProducerSettings()
        .storeId(h.storeId)
        .topics(h.topic, fifo)
        .deliveryMode(DeliveryMode.OUTBOX)
        .publishAfter(Duration.ofMillis(700))
        .reconcileInterval(Duration.ofMillis(200));
  }

  /**
   * One thread's commands: each locks a random aggregate's row, assigns the next version under that
   * lock and publishes the versioned event. A command that loses a lock wait or a deadlock is
   * retried as a new command (nothing of it committed).
   */
  private static int commands(ProducerHarness h, TxProducer p, String fifo) throws Exception {
    int committed = 0;
    for (int i = 0; i < COMMANDS_PER_THREAD; i++) {
      String account = "a" + ThreadLocalRandom.current().nextInt(AGGREGATES);
      for (int attempt = 0; ; attempt++) {
        String cmd = UUID.randomUUID().toString().substring(0, 12);
        try {
          p.template()
              .execute(
                  TxMessage.builder()
                      .eventId("cmd-" + cmd)
                      .topic(h.topic)
                      .eventType("DepositAccepted")
                      .aggregate("Command", cmd, 0)
                      .payload(("{\"cmd\":\"" + cmd + "\"}").getBytes(StandardCharsets.UTF_8))
                      .build(),
                  ctx -> {
                    long v;
                    try (PreparedStatement ps =
                        ctx.connection()
                            .prepareStatement(
                                "SELECT version FROM account WHERE id = ? FOR UPDATE")) {
                      ps.setString(1, account);
                      try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        v = rs.getLong(1) + 1;
                      }
                    }
                    try (PreparedStatement ps =
                        ctx.connection()
                            .prepareStatement("UPDATE account SET version = ? WHERE id = ?")) {
                      ps.setLong(1, v);
                      ps.setString(2, account);
                      ps.executeUpdate();
                    }
                    ctx.publish(
                        TxMessage.builder()
                            .eventId("acct-" + account + "-" + v)
                            .topic(fifo)
                            .eventType("Deposited")
                            .aggregate("Account", account, v)
                            .payload(("{\"v\":" + v + "}").getBytes(StandardCharsets.UTF_8))
                            .build());
                    return null;
                  });
          committed++;
          break;
        } catch (RuntimeException e) {
          if (attempt >= 10) {
            throw e;
          }
        }
      }
    }
    return committed;
  }

  private static Map<String, Long> versions(ProducerHarness h) throws Exception {
    Map<String, Long> out = new ConcurrentHashMap<>();
    try (Connection c = h.db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, version FROM account")) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  /**
   * An older DEAD row blocks its aggregate: the next version is neither sent at once nor claimed,
   * and txmsg.journal.blocked counts it; once the DEAD row is requeued and sent, the held row
   * follows, in order.
   */
  @ParameterizedTest
  @MethodSource("io.txmsg.testkit.transport.TestTransport#withDatabases")
  void anOlderDeadRowBlocksItsAggregateWithAMetricUntilRequeued(
      TestTransport transport, TestDatabase kind) throws Exception {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    TestTransport.Open open = transport.open();
    try (ProducerHarness h =
            new ProducerHarness(
                kind,
                open,
                TopicType.FIFO,
                t -> t,
                s ->
                    s.deliveryMode(DeliveryMode.OUTBOX)
                        .publishAfter(Duration.ofMillis(200))
                        .reconcilerEnabled(false));
        TxProducer p =
            TxProducer.builder()
                .dataSource(h.db.dataSource())
                .transport(open.transport())
                .meterRegistry(registry)
                .interceptor(h.interceptor)
                .settings(
                    new TxProducerSettings()
                        .storeId(h.storeId)
                        .topics(h.topic)
                        .deliveryMode(DeliveryMode.OUTBOX)
                        .publishAfter(Duration.ofMillis(200))
                        .reconcilerEnabled(false))
                .build()) {
      OutboxTest.ready(transport, h);
      String agg = UUID.randomUUID().toString().substring(0, 8);
      h.interceptor.delegate =
          new io.txmsg.api.ProducerInterceptor() {
            @Override
            public boolean beforeSend(TxMessage message, String attemptId) {
              return message.aggregateVersion() != 1; // version 1 is never sent at once
            }
          };
      p.template().execute(versioned(h.topic, agg, 1), ctx -> null);
      try (Connection c = h.db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.executeUpdate(
            "UPDATE txmsg_journal SET status = 'DEAD', last_error_code = 'TOO_LARGE'"
                + " WHERE event_id = 'v-"
                + agg
                + "-1'");
      }
      var second = p.template().execute(versioned(h.topic, agg, 2), ctx -> null);
      assertThat(second.brokerAcknowledged()).as("held back: version 1 is DEAD").isFalse();
      Thread.sleep(300); // past publishAfter
      assertThat(p.reconciler().runOnce().claimed()).as("nothing claimable").isZero();
      assertThat(registry.get("txmsg.journal.blocked").gauge().value()).isEqualTo(1.0);
      assertThat(h.deliveryCount("v-" + agg + "-2")).isZero();

      // The operator requeues the DEAD row: it goes first, then the held one.
      try (Connection c = h.db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.executeUpdate(
            "UPDATE txmsg_journal SET status = 'RETRY', next_retry_at = created_at"
                + " WHERE event_id = 'v-"
                + agg
                + "-1'");
      }
      assertThat(p.reconciler().runOnce().republished()).as("only version 1").isEqualTo(1);
      assertThat(p.reconciler().runOnce().republished()).as("then version 2").isEqualTo(1);
      assertThat(registry.get("txmsg.journal.blocked").gauge().value()).isZero();
      assertThat(ProducerHarness.await(DELIVERY, () -> h.deliveryCount("v-" + agg + "-2") == 1))
          .isTrue();
      assertThat(h.deliveryCount("v-" + agg + "-1")).isEqualTo(1);
      assertThat(h.journal("v-" + agg + "-2").getMessageGroup()).isEqualTo("Account:" + agg);
    }
  }

  private static TxMessage versioned(String topic, String agg, long v) {
    return TxMessage.builder()
        .eventId("v-" + agg + "-" + v)
        .topic(topic)
        .eventType("Deposited")
        .aggregate("Account", agg, v)
        .payload(("{\"v\":" + v + "}").getBytes(StandardCharsets.UTF_8))
        .build();
  }
}
