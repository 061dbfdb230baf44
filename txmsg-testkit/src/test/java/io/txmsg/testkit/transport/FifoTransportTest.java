package io.txmsg.testkit.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Message groups on a FIFO topic, over each real transport: an orderly group sees each message
 * group's messages in send order, also when a delivery is retried (the next message of the group
 * waits for it).
 */
@EmbeddedRocketMQTest
class FifoTransportTest {
  private final EmbeddedRocketMQ mq;

  FifoTransportTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void eachMessageGroupIsConsumedInSendOrderEvenAcrossARetry(TestTransport kind) throws Exception {
    consumeInOrderAcrossARetry(kind, null);
  }

  /**
   * The same with leased delivery over gRPC (a simple consumer): messages of one group in one
   * receive run one after the other, and a RETRY leaves the rest of its group to come back, in
   * order, with the retried one.
   */
  @org.junit.jupiter.api.Test
  void leasedDeliveryOverGrpcKeepsEachMessageGroupInSendOrderAcrossARetry() throws Exception {
    consumeInOrderAcrossARetry(
        TestTransport.GRPC,
        new SubscriptionSpec.Lease(
            Duration.ofSeconds(10), Duration.ofMillis(200), Duration.ofMillis(500)));
  }

  private void consumeInOrderAcrossARetry(TestTransport kind, SubscriptionSpec.Lease lease)
      throws Exception {
    String topic = "fifo-" + UUID.randomUUID().toString().substring(0, 8);
    String group = "fifo-g-" + topic;
    mq.createTopic(topic, TopicType.FIFO);
    mq.createConsumerGroup(group, 5, Duration.ofMillis(200), Duration.ofMillis(500), true);
    Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
    Set<String> retriedOnce = ConcurrentHashMap.newKeySet();
    int groups = 3;
    int perGroup = 10;
    try (TestTransport.Open t = kind.open();
        ProducerChannel producer =
            t.transport().openProducer(new ProducerSpec("fifo-store", Set.of(topic), v -> null));
        Subscription sub =
            t.transport()
                .subscribe(
                    new SubscriptionSpec(group, Map.of(topic, "*"), 4, lease),
                    m -> {
                      String[] body = new String(m.body(), StandardCharsets.UTF_8).split(":");
                      int n = Integer.parseInt(body[1]);
                      // The 3rd message of every group fails once: the 4th must wait for it.
                      if (n == 3 && retriedOnce.add(body[0])) {
                        return Verdict.RETRY;
                      }
                      seen.computeIfAbsent(body[0], k -> new CopyOnWriteArrayList<>()).add(n);
                      return Verdict.ACK;
                    })) {
      mq.awaitSubscribed(group, topic, Duration.ofSeconds(20));
      for (int i = 0; i < perGroup; i++) {
        for (int g = 0; g < groups; g++) {
          String name = "agg-" + g;
          producer.send(
              new OutboundMessage(
                      topic,
                      null,
                      List.of(name + "-" + i),
                      Map.of(),
                      (name + ":" + i).getBytes(StandardCharsets.UTF_8))
                  .inGroup(name));
        }
      }
      RemotingTransportTest.await(
          () -> seen.size() == groups && seen.values().stream().allMatch(l -> l.size() >= perGroup),
          Duration.ofSeconds(60));
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < perGroup; i++) {
        expected.add(i);
      }
      assertThat(seen.values()).allSatisfy(l -> assertThat(l).containsExactlyElementsOf(expected));
    }
  }
}
