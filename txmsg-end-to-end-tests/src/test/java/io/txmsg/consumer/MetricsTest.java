package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.REAL;
import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.VersionPolicy;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The documented meter names and tags, from real producer and consumer runs. */
class MetricsTest {
  @ParameterizedTest
  @MethodSource(REAL)
  void producerAndConsumerMetersHaveTheDocumentedNamesAndBoundedTags(
      TestTransport transport, TestDatabase kind) throws Exception {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    String topic = "m-" + UUID.randomUUID().toString().substring(0, 8);
    String group = "points-" + topic;
    mq.createTopic(topic, TopicType.TRANSACTION);
    mq.createConsumerGroup(group, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    // A plain connection's fresh group could start past a message sent before its first rebalance.
    mq.startGroupAtFirstMessage(group, topic);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (DatabaseFixture db = kind.open();
        TxProducer producer =
            TxProducer.builder()
                .dataSource(db.dataSource())
                .settings(
                    new TxProducerSettings()
                        .connection(transport.connection(mq))
                        .topics(topic)
                        .storeId("metrics-" + kind.id())
                        .autoCreateSchema(true))
                .interceptor(
                    new ProducerInterceptor() {
                      @Override
                      public boolean beforeHalfMessageCommit(TxMessage m, String attemptId) {
                        return !m.eventId().equals("lost-commit"); // the check-back delivers it
                      }
                    })
                .meterRegistry(registry, Duration.ofMillis(200))
                .build();
        TxConsumers consumers =
            TxConsumers.builder()
                .dataSource(db.dataSource())
                .settings(new TxConsumerSettings().connection(transport.connection(mq)))
                .handler(
                    HandlerDefinition.of(group, topic, "PaymentSucceeded", Paid.class, (e, c) -> {})
                        .versionGuard(true)
                        .versionPolicy(VersionPolicy.CONTIGUOUS))
                .meterRegistry(registry)
                .build()) {
      List<String> ids = List.of("ok-1", "lost-commit", "gap-3");
      // One at a time: queues do not keep order, and the versions must arrive 1, 2, 5.
      send(producer, topic, "ok-1", 1);
      await("v1", DELIVERY, () -> count(registry, "txmsg.consume", "outcome", "applied") == 1);
      send(producer, topic, "lost-commit", 2);
      await(
          "v2 through the check-back",
          DELIVERY,
          () ->
              count(registry, "txmsg.consume", "outcome", "applied") == 2
                  && count(registry, "txmsg.checkback", "reason", "found") >= 1);
      send(producer, topic, "gap-3", 5); // version 5 after 2: a gap for the contiguous guard
      await(
          "gap",
          DELIVERY,
          // The gap is counted before the delivery's outcome (retry) is, and the outcome before
          // its latency and age are recorded: wait for all of them.
          () ->
              count(registry, "txmsg.version.gap", null, null) >= 1
                  && count(registry, "txmsg.consume", "outcome", "retry") >= 1
                  && timed(registry, "txmsg.consume.latency") >= 3
                  && timed(registry, "txmsg.consume.age") >= 3);

      assertThat(
              registry
                  .get("txmsg.send")
                  .tags("destination", topic, "event_type", "PaymentSucceeded", "result", "sent")
                  .counter()
                  .count())
          .isEqualTo(2);
      assertThat(registry.get("txmsg.send").tags("result", "unknown").counter().count())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("txmsg.checkback")
                  .tags("resolution", "COMMIT", "reason", "found")
                  .counter()
                  .count())
          .isGreaterThanOrEqualTo(1);
      assertThat(registry.get("txmsg.checkback.latency").timer().count()).isGreaterThanOrEqualTo(1);
      assertThat(registry.get("txmsg.journal.pending").tags("destination", topic).gauge())
          .isNotNull();
      assertThat(registry.get("txmsg.journal.oldest.age").tags("destination", topic).gauge())
          .isNotNull();
      assertThat(registry.get("txmsg.reconcile.republished").counter()).isNotNull();
      assertThat(registry.get("txmsg.lease.expired").counter()).isNotNull();
      assertThat(registry.get("txmsg.instance.takeover").counter().count()).isZero();
      assertThat(
              registry
                  .get("txmsg.consume")
                  .tags("group", group, "event_type", "PaymentSucceeded", "outcome", "applied")
                  .counter()
                  .count())
          .isEqualTo(2);
      assertThat(registry.get("txmsg.consume").tags("outcome", "retry").counter().count())
          .isGreaterThanOrEqualTo(1);
      assertThat(registry.get("txmsg.consume.latency").tags("group", group).timer().count())
          .isGreaterThanOrEqualTo(3);
      assertThat(registry.get("txmsg.consume.age").tags("group", group).timer().count())
          .isGreaterThanOrEqualTo(3);
      assertThat(registry.get("txmsg.version.gap").tags("group", group).counter().count())
          .isGreaterThanOrEqualTo(1);

      Set<String> tagValues =
          registry.getMeters().stream()
              .map(Meter::getId)
              .flatMap(id -> id.getTags().stream())
              .map(Tag::getValue)
              .collect(Collectors.toSet());
      assertThat(tagValues).doesNotContainAnyElementsOf(ids); // never an eventId as a tag
      assertThat(
              registry.getMeters().stream()
                  .map(m -> m.getId().getName())
                  .filter(n -> !n.startsWith("txmsg.")))
          .isEmpty();
    }
  }

  /** How many times the timers of this name recorded. */
  private static long timed(SimpleMeterRegistry r, String name) {
    return r.find(name).timers().stream().mapToLong(t -> t.count()).sum();
  }

  private static double count(SimpleMeterRegistry r, String name, String tag, String value) {
    var search = r.find(name);
    if (tag != null) {
      search = search.tag(tag, value);
    }
    return search.counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static void send(TxProducer producer, String topic, String id, long version) {
    producer
        .template()
        .execute(
            TxMessage.builder()
                .eventId(id)
                .topic(topic)
                .eventType("PaymentSucceeded")
                .aggregate("Payment", "p1", version)
                .payload(ConsumerHarness.paid("a", 1))
                .build(),
            ctx -> null);
  }
}
