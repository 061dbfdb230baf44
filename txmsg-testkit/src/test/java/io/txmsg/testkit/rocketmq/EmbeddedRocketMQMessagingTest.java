package io.txmsg.testkit.rocketmq;

import static io.txmsg.testkit.rocketmq.RocketMQClients.PROVIDER;
import static io.txmsg.testkit.rocketmq.RocketMQClients.configuration;
import static io.txmsg.testkit.rocketmq.RocketMQClients.message;
import static io.txmsg.testkit.rocketmq.RocketMQClients.receive;
import static io.txmsg.testkit.rocketmq.RocketMQClients.simpleConsumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionChecker;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.junit.jupiter.api.Test;

/** Messaging against the real, JVM-wide shared cluster. */
@EmbeddedRocketMQTest
class EmbeddedRocketMQMessagingTest {
  private static final TransactionChecker UNKNOWN = view -> TransactionResolution.UNKNOWN;

  private final EmbeddedRocketMQ rocketmq;

  EmbeddedRocketMQMessagingTest(EmbeddedRocketMQ rocketmq) {
    this.rocketmq = rocketmq;
  }

  @Test
  void deliversPlainMessage() throws Exception {
    rocketmq.createTopic("plain-topic", TopicType.NORMAL);
    rocketmq.createConsumerGroup("plain-group", 3, Duration.ofSeconds(1), Duration.ofSeconds(5));
    try (SimpleConsumer consumer = simpleConsumer(rocketmq, "plain-group", "plain-topic");
        Producer producer =
            PROVIDER
                .newProducerBuilder()
                .setClientConfiguration(configuration(rocketmq))
                .setTopics("plain-topic")
                .build()) {
      rocketmq.awaitSubscribed("plain-group", "plain-topic", Duration.ofSeconds(20));
      SendReceipt receipt = producer.send(message("plain-topic", "hello"));
      assertThat(receipt.getMessageId()).isNotNull();
      assertThat(receive(consumer, 1, Duration.ofSeconds(20))).containsExactly("hello");
    }
  }

  /**
   * describeQueues shows a stored message as a queue's max offset, and the group's consume offset
   * reaching it once the message is received and acknowledged.
   */
  @Test
  void describeQueuesShowsStoredAndConsumedOffsets() throws Exception {
    rocketmq.createTopic("queues-topic", TopicType.NORMAL, 1);
    rocketmq.createConsumerGroup("queues-group", 3, Duration.ofSeconds(1), Duration.ofSeconds(5));
    assertThat(rocketmq.describeQueues("queues-topic", "queues-group")).isEqualTo("0:0-0@-");
    assertThat(rocketmq.describeQueues("no-such-topic-q", "queues-group"))
        .contains("not available")
        .contains("no topic no-such-topic-q");
    try (Producer producer =
        PROVIDER
            .newProducerBuilder()
            .setClientConfiguration(configuration(rocketmq))
            .setTopics("queues-topic")
            .build()) {
      producer.send(message("queues-topic", "stored"));
    }
    assertThat(rocketmq.describeQueues("queues-topic", "queues-group")).startsWith("0:0-1@");
    try (SimpleConsumer consumer = simpleConsumer(rocketmq, "queues-group", "queues-topic")) {
      assertThat(receive(consumer, 1, Duration.ofSeconds(20))).containsExactly("stored");
    }
    assertThat(rocketmq.describeQueues("queues-topic", "queues-group")).isEqualTo("0:0-1@1");
  }

  /**
   * undrained names a stored message the group has not received, then the same message popped and
   * not yet acknowledged (the pop has moved the group's offset to max already: only the broker's
   * in-flight count shows it), and nothing once it is acknowledged.
   */
  @Test
  void undrainedShowsUnreadAndPoppedButUnackedMessagesUntilTheAck() throws Exception {
    rocketmq.createTopic("drain-topic", TopicType.NORMAL, 1);
    rocketmq.createConsumerGroup("drain-group", 3, Duration.ofSeconds(1), Duration.ofSeconds(5));
    assertThat(rocketmq.undrained("drain-topic", "drain-group")).isEmpty();
    try (Producer producer =
        PROVIDER
            .newProducerBuilder()
            .setClientConfiguration(configuration(rocketmq))
            .setTopics("drain-topic")
            .build()) {
      producer.send(message("drain-topic", "held"));
    }
    assertThat(rocketmq.undrained("drain-topic", "drain-group"))
        .contains("drain-topic#0:offset=-1/max=1");
    try (SimpleConsumer consumer = simpleConsumer(rocketmq, "drain-group", "drain-topic")) {
      List<MessageView> got = List.of();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (got.isEmpty() && System.nanoTime() < deadline) {
        got = consumer.receive(1, Duration.ofSeconds(30));
      }
      assertThat(got).hasSize(1);
      assertThat(rocketmq.undrained("drain-topic", "drain-group"))
          .contains("drain-topic#0:offset=1/max=1,inflight=1");
      consumer.ack(got.get(0));
    }
    assertThat(rocketmq.undrained("drain-topic", "drain-group")).isEmpty();
  }

  /** brokerSetting reads the running broker's properties, defaults included. */
  @Test
  void brokerSettingReadsTheRunningBrokersValues() {
    assertThat(rocketmq.brokerSetting("transactionCheckMax")).isEqualTo("15");
    assertThat(rocketmq.brokerSetting("transactionCheckInterval")).isEqualTo("1000");
    assertThat(rocketmq.brokerSetting("channelExpiredTimeout")).isEqualTo("120000");
    assertThat(rocketmq.brokerSetting("messageDelayLevel")).startsWith("1s 1s");
    assertThatThrownBy(() -> rocketmq.brokerSetting("noSuchProperty"))
        .hasMessageContaining("no broker property noSuchProperty");
  }

  @Test
  void awaitSubscribedReturnsOnceAPushConsumerIsOnlineAndTimesOutWithoutOne() throws Exception {
    rocketmq.createTopic("await-topic", TopicType.NORMAL);
    rocketmq.createConsumerGroup("await-group", 3, Duration.ofSeconds(1), Duration.ofSeconds(5));
    assertThatThrownBy(() -> rocketmq.awaitSubscribed("await-group", Duration.ofMillis(300)))
        .isInstanceOf(EmbeddedRocketMQException.class)
        .hasMessageContaining("await-group");
    try (PushConsumer consumer =
        PROVIDER
            .newPushConsumerBuilder()
            .setClientConfiguration(configuration(rocketmq))
            .setConsumerGroup("await-group")
            .setSubscriptionExpressions(Map.of("await-topic", FilterExpression.SUB_ALL))
            .setMessageListener(view -> ConsumeResult.SUCCESS)
            .build()) {
      rocketmq.awaitSubscribed("await-group", "await-topic", Duration.ofSeconds(20));
      assertThatThrownBy(
              () -> rocketmq.awaitSubscribed("await-group", "other-topic", Duration.ofMillis(300)))
          .isInstanceOf(EmbeddedRocketMQException.class);
    }
  }

  @Test
  void deliversCommittedTransactionalMessage() throws Exception {
    rocketmq.createTopic("tx-commit-topic", TopicType.TRANSACTION);
    try (SimpleConsumer consumer = simpleConsumer(rocketmq, "tx-commit-group", "tx-commit-topic");
        Producer producer = transactionalProducer("tx-commit-topic", UNKNOWN)) {
      Transaction transaction = producer.beginTransaction();
      producer.send(message("tx-commit-topic", "committed"), transaction);
      transaction.commit();
      assertThat(receive(consumer, 1, Duration.ofSeconds(20))).containsExactly("committed");
    }
  }

  @Test
  void doesNotDeliverRolledBackMessage() throws Exception {
    rocketmq.createTopic("tx-rollback-topic", TopicType.TRANSACTION);
    try (SimpleConsumer consumer =
            simpleConsumer(rocketmq, "tx-rollback-group", "tx-rollback-topic");
        Producer producer = transactionalProducer("tx-rollback-topic", UNKNOWN)) {
      Transaction rolledBack = producer.beginTransaction();
      producer.send(message("tx-rollback-topic", "rolled-back"), rolledBack);
      rolledBack.rollback();
      Transaction committed = producer.beginTransaction();
      producer.send(message("tx-rollback-topic", "committed"), committed);
      committed.commit();
      // past the check timeout (2 s) and a few check intervals (1 s): a rollback stays final
      List<String> bodies = receive(consumer, 2, Duration.ofSeconds(5));
      assertThat(bodies).containsExactly("committed");
    }
  }

  @Test
  void checksBackUnresolvedHalfMessageAndDeliversOnCommit() throws Exception {
    rocketmq.createTopic("tx-check-topic", TopicType.TRANSACTION);
    AtomicInteger checks = new AtomicInteger();
    TransactionChecker commitOnCheck =
        view -> {
          checks.incrementAndGet();
          return TransactionResolution.COMMIT;
        };
    try (SimpleConsumer consumer = simpleConsumer(rocketmq, "tx-check-group", "tx-check-topic");
        Producer producer = transactionalProducer("tx-check-topic", commitOnCheck)) {
      Transaction transaction = producer.beginTransaction();
      producer.send(message("tx-check-topic", "checked"), transaction);
      // neither commit nor rollback: the broker must ask the checker
      assertThat(receive(consumer, 1, Duration.ofSeconds(30))).containsExactly("checked");
      assertThat(checks.get()).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void rejectsPlainSendToTransactionTopic() throws Exception {
    rocketmq.createTopic("tx-only-topic", TopicType.TRANSACTION);
    try (Producer producer =
        PROVIDER
            .newProducerBuilder()
            .setClientConfiguration(configuration(rocketmq))
            .setTopics("tx-only-topic")
            .build()) {
      assertThatThrownBy(() -> producer.send(message("tx-only-topic", "plain")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not match");
    }
  }

  @Test
  void rejectsSendToMissingTopic() throws Exception {
    try (Producer producer =
        PROVIDER.newProducerBuilder().setClientConfiguration(configuration(rocketmq)).build()) {
      assertThatThrownBy(() -> producer.send(message("no-such-topic", "lost")))
          .isInstanceOf(ClientException.class)
          .isInstanceOf(org.apache.rocketmq.client.java.exception.NotFoundException.class)
          .hasMessageContaining("40402");
    }
  }

  private Producer transactionalProducer(String topic, TransactionChecker checker)
      throws ClientException {
    return PROVIDER
        .newProducerBuilder()
        .setClientConfiguration(configuration(rocketmq))
        .setTopics(topic)
        .setTransactionChecker(checker)
        .build();
  }
}
