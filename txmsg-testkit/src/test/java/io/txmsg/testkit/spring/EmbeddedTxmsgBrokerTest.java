package io.txmsg.testkit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.Resolution;
import io.txmsg.rocketmq.remoting.RemotingTransport;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

/**
 * {@link EmbeddedTxmsgBroker} under plain Spring (the parent's Spring 6.2, no Boot): the topics and
 * groups the {@code txmsg.*} properties name exist on the shared cluster with their kinds and retry
 * settings before the context starts, and the broker address is registered. Both list forms are
 * read: comma-separated and indexed (as YAML lists become). The Boot 4 modules use the same
 * annotation under Spring 7.
 */
@SpringJUnitConfig(EmbeddedTxmsgBrokerTest.Empty.class)
@TestPropertySource(
    properties = {
      "spring.application.name=tk-app",
      "txmsg.producer.topics=tk-spring-pay, tk-spring-refund",
      "txmsg.producer.publish-topics[0]=tk-spring-audit",
      "txmsg.consumer.groups.tk-spring-points.topics[0]=tk-spring-pay",
      "txmsg.consumer.groups.tk-spring-points.topics[1]=tk-spring-partner",
      "txmsg.consumer.groups.tk-spring-mail.topics=tk-spring-fifo"
    })
@EmbeddedTxmsgBroker(fifoTopics = "tk-spring-fifo", retryMaxTimes = 7)
class EmbeddedTxmsgBrokerTest {
  @Configuration(proxyBeanMethods = false)
  static class Empty {}

  @Autowired Environment env;

  @Test
  void theNameServerIsRegisteredWhenTheApplicationNamesNoAddress() {
    EmbeddedRocketMQ mq = EmbeddedRocketMQ.shared();
    assertThat(env.getProperty("txmsg.broker.name-server")).isEqualTo(mq.namesrvAddress());
    assertThat(env.getProperty("txmsg.broker.endpoints")).isEmpty();
  }

  @Test
  void theNamedTopicsExistWithTheKindTheirUseNeeds() throws Exception {
    Map<String, TopicKind> expected =
        Map.of(
            "tk-spring-pay", TopicKind.TRANSACTION, // producer topic, HALF_MESSAGE
            "tk-spring-refund", TopicKind.TRANSACTION,
            "tk-spring-audit", TopicKind.NORMAL, // publish topic
            "tk-spring-partner", TopicKind.TRANSACTION, // only consumed: another txmsg service's
            "tk-spring-fifo", TopicKind.FIFO); // as the annotation says
    try (RemotingTransport t = remoting();
        ProducerChannel ch =
            t.openProducer(
                new ProducerSpec("tk-app", expected.keySet(), m -> Resolution.UNKNOWN))) {
      expected.forEach(
          (topic, kind) ->
              assertThat(ch.acceptedKinds(topic)).as(topic).isEqualTo(Optional.of(Set.of(kind))));
    }
  }

  @Test
  void theGroupsExistWithTheRetriesOfTheAnnotation() throws Exception {
    try (RemotingTransport t = remoting()) {
      for (String group : new String[] {"tk-spring-points", "txmsg-confirm-tk-app"}) {
        try (Subscription s =
            t.subscribe(
                new SubscriptionSpec(group, Map.of("tk-spring-pay", "*"), 1, null),
                m -> Verdict.RETRY)) {
          // 7 redeliveries: 8 deliveries in all
          assertThat(s.maxDeliveryAttempts(Duration.ofSeconds(10))).as(group).hasValue(8);
        }
      }
    }
  }

  private static RemotingTransport remoting() {
    return new RemotingTransport(
        BrokerConnection.nameServer(EmbeddedRocketMQ.shared().namesrvAddress()));
  }
}
