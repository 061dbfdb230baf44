package io.txmsg.testkit.rocketmq;

import static io.txmsg.testkit.rocketmq.RocketMQClients.PROVIDER;
import static io.txmsg.testkit.rocketmq.RocketMQClients.configuration;
import static io.txmsg.testkit.rocketmq.RocketMQClients.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A second cluster next to the shared one, on a JVM of its own shape: side by side, restart, close.
 */
@EmbeddedRocketMQTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// The methods drive one second cluster through an order (restart, then close): one at a time.
@Execution(ExecutionMode.SAME_THREAD)
class EmbeddedRocketMQLifecycleTest {
  private static EmbeddedRocketMQ second;

  @BeforeAll
  static void startSecondCluster() {
    second =
        EmbeddedRocketMQ.builder()
            .minHeap("128m")
            .maxHeap("320m")
            .garbageCollector("-XX:+UseG1GC")
            .jvmArgument("-XX:G1HeapRegionSize=4m")
            .start();
  }

  @AfterAll
  static void closeSecondCluster() {
    if (second != null) {
      second.close();
    }
  }

  @Test
  @Order(0)
  void theClusterJvmRunsWithTheOptionsItWasBuiltWith(EmbeddedRocketMQ shared) {
    assertThat(second.jvmOptions())
        .containsExactly(
            "-Xms128m",
            "-Xmx320m",
            "-XX:MaxDirectMemorySize=1g",
            "-XX:+UseG1GC",
            "-XX:G1HeapRegionSize=4m");
    assertThat(arguments(second)).containsSubsequence(second.jvmOptions());
    // the defaults every test cluster runs with
    assertThat(shared.jvmOptions())
        .containsExactly("-Xms64m", "-Xmx256m", "-XX:MaxDirectMemorySize=1g", "-XX:+UseSerialGC");
    assertThat(arguments(shared)).containsSubsequence(shared.jvmOptions());
  }

  @Test
  @Order(0)
  void refusesAGarbageCollectorThatIsNotACollectorOption() {
    EmbeddedRocketMQ.Builder builder = EmbeddedRocketMQ.builder();
    assertThatThrownBy(() -> builder.garbageCollector("G1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("garbageCollector");
    assertThatThrownBy(() -> builder.garbageCollector("-XX:+UseG1GC -Xmx1g"))
        .isInstanceOf(IllegalArgumentException.class);
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
  void restartKeepsPortsTopicsAndAGroupsFirstMessageStart() throws Exception {
    long before = second.pid();
    String endpoint = second.grpcEndpoint();
    second.createTopic("survives-restart", TopicType.NORMAL);
    // Killed right after: sooner than the broker's own periodic flush of consume offsets (5 s).
    second.startGroupAtFirstMessage("starts-at-first", "survives-restart");

    second.restart();

    assertThat(second.describeQueues("survives-restart", "starts-at-first"))
        .as("the group's start offsets after a kill")
        .doesNotContain("@-")
        .contains("@0");

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

  /** The command line of the cluster's JVM, as the operating system reports it. */
  private static List<String> arguments(EmbeddedRocketMQ cluster) {
    return List.of(ProcessHandle.of(cluster.pid()).orElseThrow().info().arguments().orElseThrow());
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
