package io.txmsg.testkit.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Leased delivery over gRPC ({@code SubscriptionSpec.Lease}, a simple consumer whose invisible time
 * this client renews): a handler that runs longer than the lease keeps its message, a RETRY comes
 * back after its backoff with the next delivery attempt. What the lease is for, a crashed or paused
 * consumer JVM whose messages another instance gets after one lease, needs a real process to kill:
 * txmsg-reliability's ConsumerCrashTest and ConsumerPauseTest run on leased delivery over gRPC.
 */
@EmbeddedRocketMQTest
class LeasedDeliveryTest {
  private static final SubscriptionSpec.Lease LEASE =
      new SubscriptionSpec.Lease(
          Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(2));

  private final EmbeddedRocketMQ mq;

  LeasedDeliveryTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  private String[] topicAndGroup(String name) {
    String topic = name + "-" + UUID.randomUUID().toString().substring(0, 8);
    String group = "g-" + topic;
    mq.createTopic(topic, TopicType.NORMAL);
    mq.createConsumerGroup(group, 5, Duration.ofMillis(500), Duration.ofSeconds(1));
    return new String[] {topic, group};
  }

  private static void send(ProducerChannel producer, String topic, String body) throws Exception {
    producer.send(
        new OutboundMessage(
            topic, null, List.of(body), Map.of(), body.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aHandlerRunningLongerThanTheLeaseKeepsItsMessage() throws Exception {
    String[] tg = topicAndGroup("lease-long");
    List<String> calls = new CopyOnWriteArrayList<>();
    CountDownLatch finished = new CountDownLatch(1);
    SubscriptionSpec spec = new SubscriptionSpec(tg[1], Map.of(tg[0], "*"), 2, LEASE);
    // Both instances hold the message for 2.5 leases: the broker may hand it to either one, and
    // the other is the one that would get it again if the holder's lease were not renewed.
    try (TestTransport.Open t = TestTransport.GRPC.open();
        ProducerChannel producer =
            t.transport().openProducer(new ProducerSpec("lease-store", Set.of(tg[0]), v -> null));
        Subscription a = t.transport().subscribe(spec, m -> slowAck("a", m, calls, finished));
        Subscription b = t.transport().subscribe(spec, m -> slowAck("b", m, calls, finished))) {
      mq.awaitSubscribed(tg[1], tg[0], Duration.ofSeconds(20));
      send(producer, tg[0], "slow");
      assertThat(finished.await(90, TimeUnit.SECONDS)).isTrue();
      // One more lease after the ack: an unrenewed or unacked message would be back by then.
      sleep(Duration.ofSeconds(12));
      // Whichever instance received it ran it once; nobody got it a second time.
      assertThat(calls).hasSize(1);
      assertThat(calls.get(0)).endsWith(":1");
    }
  }

  @Test
  void aRetryComesBackAfterItsBackoffWithTheNextAttempt() throws Exception {
    String[] tg = topicAndGroup("lease-retry");
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    List<Long> at = new CopyOnWriteArrayList<>();
    try (TestTransport.Open t = TestTransport.GRPC.open();
        ProducerChannel producer =
            t.transport().openProducer(new ProducerSpec("lease-store", Set.of(tg[0]), v -> null));
        Subscription sub =
            t.transport()
                .subscribe(
                    new SubscriptionSpec(tg[1], Map.of(tg[0], "*"), 2, LEASE),
                    m -> {
                      attempts.add(m.deliveryAttempt());
                      at.add(System.nanoTime());
                      return m.deliveryAttempt() < 3 ? Verdict.RETRY : Verdict.ACK;
                    })) {
      mq.awaitSubscribed(tg[1], tg[0], Duration.ofSeconds(20));
      send(producer, tg[0], "flaky");
      RemotingTransportTest.await(() -> attempts.size() >= 3, Duration.ofSeconds(60));
      sleep(Duration.ofSeconds(12));
      assertThat(attempts).containsExactly(1, 2, 3);
      // Backoff 1 s then 2 s (retryInitial doubled): never sooner (a lower bound, not a speed).
      assertThat(Duration.ofNanos(at.get(1) - at.get(0)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(900));
      assertThat(Duration.ofNanos(at.get(2) - at.get(1)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(1900));
    }
  }

  private static Verdict slowAck(
      String instance, InboundMessage m, List<String> calls, CountDownLatch finished) {
    calls.add(instance + ":" + m.deliveryAttempt());
    sleep(Duration.ofSeconds(25)); // 2.5 leases
    finished.countDown();
    return Verdict.ACK;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
