package io.txmsg.testkit.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.PublishException;
import io.txmsg.api.TransportException;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A missing topic on each real transport: opening a producer for it fails naming the topic, and a
 * send or half message to it is a permanent TOPIC_NOT_FOUND. The broker's and the client's text
 * reaches these messages on one line (over gRPC the proxy's own text for this ends with a line
 * break and a FAQ link).
 */
@EmbeddedRocketMQTest
class MissingTopicTest {
  private final EmbeddedRocketMQ mq;

  MissingTopicTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  private static String name(String prefix) {
    return prefix + UUID.randomUUID().toString().substring(0, 8);
  }

  private static OutboundMessage message(String topic) {
    return new OutboundMessage(
        topic, "tag", List.of("k"), Map.of(), "x".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void openingAProducerForAMissingTopicFailsNamingItOnOneLine(TestTransport kind) throws Exception {
    String missing = name("mt-open-");
    try (TestTransport.Open t = kind.open()) {
      assertThatThrownBy(
              () ->
                  t.transport().openProducer(new ProducerSpec("mt-s1", Set.of(missing), v -> null)))
          .isInstanceOf(TransportException.class)
          .hasMessageContaining("topic '" + missing + "' not found")
          .hasMessageContaining(
              "create it first: a TRANSACTION topic for half messages, NORMAL or FIFO for plain"
                  + " sends")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r"));
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = TestTransport.class,
      names = {"GRPC", "REMOTING"})
  void aSendOrHalfMessageToAMissingTopicIsAPermanentTopicNotFoundOnOneLine(TestTransport kind)
      throws Exception {
    String topic = name("mt-ok-");
    mq.createTopic(topic, TopicType.NORMAL);
    String missing = name("mt-missing-");
    try (TestTransport.Open t = kind.open();
        ProducerChannel p =
            t.transport().openProducer(new ProducerSpec("mt-s2", Set.of(topic), v -> null))) {
      assertThatThrownBy(() -> p.send(message(missing)))
          .isInstanceOfSatisfying(
              PublishException.class,
              e -> {
                assertThat(e.errorCode()).isEqualTo("TOPIC_NOT_FOUND");
                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage())
                    .startsWith("message to " + missing + " not sent: topic not found (")
                    .contains(missing)
                    .doesNotContain("\n", "\r");
              });
      assertThatThrownBy(() -> p.sendHalf(message(missing)))
          .isInstanceOfSatisfying(
              PublishException.class,
              e -> {
                assertThat(e.errorCode()).isEqualTo("TOPIC_NOT_FOUND");
                assertThat(e.retryable()).isFalse();
                assertThat(e.getMessage())
                    .startsWith("half message to " + missing + " not sent: topic not found (")
                    .doesNotContain("\n", "\r");
              });
    }
  }
}
