package io.txmsg.testkit.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.Resolution;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The remoting transport's own behaviour on the shared embedded cluster. */
@EmbeddedRocketMQTest
class RemotingTransportTest {
  private final EmbeddedRocketMQ mq;

  RemotingTransportTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  private static OutboundMessage message(String topic, String body) {
    return new OutboundMessage(
        topic,
        "tag",
        List.of("k-" + body),
        Map.of("txmsg_event_id", "e-" + body),
        body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void halfMessageIsDeliveredOnlyAfterCommitAndCheckBackAnswersAStrandedOne() throws Exception {
    String topic = "rt-half-" + UUID.randomUUID().toString().substring(0, 8);
    mq.createTopic(topic, TopicType.TRANSACTION);
    List<InboundMessage> delivered = new CopyOnWriteArrayList<>();
    List<InboundMessage> checked = new CopyOnWriteArrayList<>();
    try (TestTransport.Open t = TestTransport.REMOTING.open();
        ProducerChannel producer =
            t.transport()
                .openProducer(
                    new ProducerSpec(
                        "rt-store",
                        Set.of(topic),
                        view -> {
                          checked.add(view);
                          return Resolution.COMMIT;
                        }));
        Subscription sub =
            t.transport()
                .subscribe(
                    new SubscriptionSpec("rt-g-" + topic, Map.of(topic, "*"), 2),
                    m -> {
                      delivered.add(m);
                      return Verdict.ACK;
                    })) {
      mq.awaitSubscribed("rt-g-" + topic, topic, Duration.ofSeconds(20));
      HalfMessage committed = producer.sendHalf(message(topic, "committed"));
      committed.commit();
      producer.sendHalf(message(topic, "stranded")); // neither committed nor rolled back
      HalfMessage rolledBack = producer.sendHalf(message(topic, "rolled-back"));
      rolledBack.rollback();
      await(
          () -> delivered.size() >= 2,
          Duration.ofSeconds(30),
          () -> "delivered " + bodies(delivered) + ", checked back " + eventIds(checked));
      Thread.sleep(1000);
      assertThat(delivered)
          .extracting(m -> new String(m.body(), StandardCharsets.UTF_8))
          .containsExactlyInAnyOrder("committed", "stranded");
      assertThat(delivered).allSatisfy(m -> assertThat(m.topic()).isEqualTo(topic));
      assertThat(delivered).allSatisfy(m -> assertThat(m.deliveryAttempt()).isEqualTo(1));
      assertThat(checked)
          .extracting(m -> m.properties().get("txmsg_event_id"))
          .contains("e-stranded")
          .doesNotContain("e-committed");
      assertThat(checked.get(0).topic()).isEqualTo(topic);
    }
  }

  /**
   * What the broker answers a synchronous END_TRANSACTION, which the client otherwise sends oneway:
   * SUCCESS once it wrote the final message, and SUCCESS again for a repeated commit of the same
   * half message, which writes the final message a second time (the broker finds the half message
   * by its commit-log offset and does not look at whether it was already ended).
   */
  @Test
  void aSynchronousCommitIsAnsweredAndARepeatedOneWritesTheMessageAgain() throws Exception {
    String topic = "rt-sync-" + UUID.randomUUID().toString().substring(0, 8);
    mq.createTopic(topic, TopicType.TRANSACTION);
    List<InboundMessage> delivered = new CopyOnWriteArrayList<>();
    try (TestTransport.Open t = TestTransport.REMOTING.open();
        ProducerChannel producer =
            t.transport()
                .openProducer(new ProducerSpec("rt-sync-store", Set.of(topic), v -> null));
        Subscription sub =
            t.transport()
                .subscribe(
                    new SubscriptionSpec("rt-g-" + topic, Map.of(topic, "*"), 2),
                    m -> {
                      delivered.add(m);
                      return Verdict.ACK;
                    })) {
      mq.awaitSubscribed("rt-g-" + topic, topic, Duration.ofSeconds(20));
      HalfMessage once = producer.sendHalf(message(topic, "once"));
      assertThat(once.commitAndConfirm()).as("the broker's answer to the commit").isTrue();
      HalfMessage twice = producer.sendHalf(message(topic, "twice"));
      assertThat(twice.commitAndConfirm()).isTrue();
      assertThat(twice.commitAndConfirm()).as("a repeated commit is answered SUCCESS").isTrue();
      await(
          () -> delivered.size() >= 3,
          Duration.ofSeconds(30),
          () -> "delivered " + bodies(delivered));
      assertThat(delivered)
          .extracting(m -> new String(m.body(), StandardCharsets.UTF_8))
          .containsExactlyInAnyOrder("once", "twice", "twice");
    }
  }

  @Test
  void retryRedeliversWithTheAttemptCountingFromOne() throws Exception {
    String topic = "rt-retry-" + UUID.randomUUID().toString().substring(0, 8);
    String group = "rt-retry-g-" + topic;
    mq.createTopic(topic, TopicType.NORMAL);
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    try (TestTransport.Open t = TestTransport.REMOTING.open()) {
      t.createGroup(group, 4);
      try (ProducerChannel producer =
              t.transport().openProducer(new ProducerSpec("rt-store2", Set.of(topic), v -> null));
          Subscription sub =
              t.transport()
                  .subscribe(
                      new SubscriptionSpec(group, Map.of(topic, "*"), 1),
                      m -> {
                        attempts.add(m.deliveryAttempt());
                        return m.deliveryAttempt() < 3 ? Verdict.RETRY : Verdict.ACK;
                      })) {
        assertThat(sub.maxDeliveryAttempts(Duration.ZERO)).hasValue(5);
        mq.awaitSubscribed(group, topic, Duration.ofSeconds(20));
        producer.send(message(topic, "x"));
        await(() -> attempts.size() >= 3, Duration.ofSeconds(40));
        assertThat(attempts).containsExactly(1, 2, 3);
      }
    }
  }

  @Test
  void confirmationHandsBatchesAndOffersARefusedBatchAgain() throws Exception {
    String topic = "rt-confirm-" + UUID.randomUUID().toString().substring(0, 8);
    mq.createTopic(topic, TopicType.NORMAL);
    List<String> confirmed = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger();
    try (TestTransport.Open t = TestTransport.REMOTING.open();
        ProducerChannel producer =
            t.transport().openProducer(new ProducerSpec("rt-store3", Set.of(topic), v -> null));
        Subscription source =
            t.transport()
                .confirmDeliveries(
                    new ConfirmationSpec(
                        "txmsg-confirm-" + topic, Set.of(topic), 16, Duration.ofMillis(50)),
                    batch -> {
                      if (refusals.getAndIncrement() == 0) {
                        return false;
                      }
                      batch.forEach(
                          m -> confirmed.add(new String(m.body(), StandardCharsets.UTF_8)));
                      return true;
                    })) {
      for (int i = 0; i < 5; i++) {
        producer.send(message(topic, "m" + i));
      }
      await(() -> confirmed.size() >= 5, Duration.ofSeconds(30));
      assertThat(confirmed).containsExactlyInAnyOrder("m0", "m1", "m2", "m3", "m4");
      assertThat(refusals.get()).isGreaterThan(1);
    }
  }

  @Test
  void aWriteOnlyDeadLetterTopicIsReportedWithTheFixAndDrainedOnceReadable() throws Exception {
    String group = "rt-dlq-" + UUID.randomUUID().toString().substring(0, 8);
    String dlq = "%DLQ%" + group;
    mq.createTopic(dlq, TopicType.NORMAL, 1);
    mq.setTopicPermission(dlq, 2); // as a 4.x broker creates it
    try (TestTransport.Open t = TestTransport.REMOTING.open();
        Subscription drain =
            t.transport().drainDeadLetters(group, m -> Verdict.ACK, Duration.ofMillis(300))) {
      await(() -> drain.problem().isPresent(), Duration.ofSeconds(20));
      assertThat(drain.problem().get())
          .contains(dlq)
          .contains("not readable")
          .contains("mqadmin updateTopicPerm")
          .contains("-p 6");
      mq.setTopicPermission(dlq, 6);
      await(() -> drain.problem().isEmpty(), Duration.ofSeconds(30));
      mq.awaitSubscribed("txmsg-dlq-" + group, dlq, Duration.ofSeconds(20));
    }
  }

  static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    await(condition, timeout, () -> "");
  }

  /** Waits for {@code condition}; a failure says what {@code state} shows at that moment. */
  static void await(BooleanSupplier condition, Duration timeout, Supplier<String> state)
      throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("condition not met within " + timeout + " " + state.get());
      }
      Thread.sleep(50);
    }
  }

  private static List<String> bodies(List<InboundMessage> messages) {
    return messages.stream().map(m -> new String(m.body(), StandardCharsets.UTF_8)).toList();
  }

  private static List<String> eventIds(List<InboundMessage> messages) {
    return messages.stream().map(m -> m.properties().get("txmsg_event_id")).toList();
  }
}
