package io.txmsg.testkit.rocketmq;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageView;

/** Small helpers around rocketmq-client-java for the tests. */
final class RocketMQClients {
  static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();

  private RocketMQClients() {}

  static ClientConfiguration configuration(EmbeddedRocketMQ rocketmq) {
    return ClientConfiguration.newBuilder()
        .setEndpoints(rocketmq.grpcEndpoint())
        .setRequestTimeout(Duration.ofSeconds(5))
        .build();
  }

  static Message message(String topic, String body) {
    return PROVIDER
        .newMessageBuilder()
        .setTopic(topic)
        .setKeys(body)
        .setBody(body.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static SimpleConsumer simpleConsumer(EmbeddedRocketMQ rocketmq, String group, String topic)
      throws ClientException {
    return PROVIDER
        .newSimpleConsumerBuilder()
        .setClientConfiguration(configuration(rocketmq))
        .setConsumerGroup(group)
        .setAwaitDuration(Duration.ofSeconds(1))
        .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
        .build();
  }

  /** Receives (and acknowledges) bodies until {@code expected} arrived or {@code within} passed. */
  static List<String> receive(SimpleConsumer consumer, int expected, Duration within)
      throws ClientException {
    List<String> bodies = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    while (bodies.size() < expected && System.nanoTime() < deadline) {
      for (MessageView view : consumer.receive(16, Duration.ofSeconds(10))) {
        bodies.add(StandardCharsets.UTF_8.decode(view.getBody()).toString());
        consumer.ack(view);
      }
    }
    return bodies;
  }
}
