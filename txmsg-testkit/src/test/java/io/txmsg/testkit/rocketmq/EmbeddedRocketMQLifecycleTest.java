package io.txmsg.testkit.rocketmq;

import static io.txmsg.testkit.rocketmq.RocketMQClients.PROVIDER;
import static io.txmsg.testkit.rocketmq.RocketMQClients.configuration;
import static io.txmsg.testkit.rocketmq.RocketMQClients.message;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** A second cluster next to the shared one: side by side, restart, close. */
@EmbeddedRocketMQTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EmbeddedRocketMQLifecycleTest {
  private static EmbeddedRocketMQ second;

  @BeforeAll
  static void startSecondCluster() {
    second = EmbeddedRocketMQ.builder().start();
  }

  @AfterAll
  static void closeSecondCluster() {
    if (second != null) {
      second.close();
    }
  }

  @Test
  @Order(1)
  void runsTwoClustersSideBySide(EmbeddedRocketMQ shared) throws Exception {
    assertThat(second.grpcEndpoint()).isNotEqualTo(shared.grpcEndpoint());
    assertThat(second.namesrvAddress()).isNotEqualTo(shared.namesrvAddress());
    assertThat(second.tempDir()).isNotEqualTo(shared.tempDir());
    assertThat(second.pid()).isNotEqualTo(shared.pid());
    for (EmbeddedRocketMQ cluster : new EmbeddedRocketMQ[] {shared, second}) {
      cluster.createTopic("side-by-side", TopicType.NORMAL);
      assertThat(sendOne(cluster, "side-by-side").getMessageId()).isNotNull();
    }
  }

  @Test
  @Order(2)
  void restartKeepsPortsAndTopics() throws Exception {
    long before = second.pid();
    String endpoint = second.grpcEndpoint();
    second.createTopic("survives-restart", TopicType.NORMAL);

    second.restart();

    assertThat(second.pid()).isNotEqualTo(before);
    assertThat(ProcessHandle.of(before).map(ProcessHandle::isAlive))
        .isNotEqualTo(Optional.of(true));
    assertThat(second.grpcEndpoint()).isEqualTo(endpoint);
    // not created again: the topic comes back from the store
    assertThat(sendOne(second, "survives-restart").getMessageId()).isNotNull();
  }

  @Test
  @Order(3)
  void closeLeavesNoProcessAndNoTempDir() {
    long pid = second.pid();
    Path tempDir = second.tempDir();
    assertThat(tempDir).isDirectory();

    second.close();

    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    assertThat(Files.exists(tempDir)).isFalse();
    assertThat(second.isRunning()).isFalse();
  }

  private static SendReceipt sendOne(EmbeddedRocketMQ cluster, String topic) throws Exception {
    try (Producer producer =
        PROVIDER
            .newProducerBuilder()
            .setClientConfiguration(configuration(cluster))
            .setTopics(topic)
            .build()) {
      return producer.send(message(topic, "hello " + cluster.grpcEndpoint()));
    }
  }
}
