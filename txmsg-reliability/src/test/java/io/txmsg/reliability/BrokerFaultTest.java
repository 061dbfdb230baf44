package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The broker fails under load: it is killed and restarted on its store, or the whole cluster is
 * paused. These scenarios run on a cluster of their own, so the other scenarios (on the shared
 * cluster) run beside them; their methods run one after another, since each kills or pauses it.
 */
@Execution(ExecutionMode.SAME_THREAD)
class BrokerFaultTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  private static EmbeddedRocketMQ cluster;

  @BeforeAll
  static void startOwnCluster() {
    cluster = EmbeddedRocketMQ.builder().start();
  }

  @AfterAll
  static void stopOwnCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void brokerKilledAndRestartedWithHalfMessagesPendingAndDeliveriesUnacked(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind, cluster)) {
      w.consumers();
      int restarts = Scale.pick(1, 3);
      Child load =
          w.producer(
              "load",
              "count",
              Integer.toString(Scale.pick(200, 900)),
              "rate",
              "40",
              "stay",
              "true");
      for (int i = 0; i < restarts; i++) {
        Thread.sleep(2_000);
        long t = System.currentTimeMillis();
        w.faultStarted(World.Fault.KILL);
        w.mq.restart();
        w.faultEnded();
        System.out.println("broker restarted in " + (System.currentTimeMillis() - t) + " ms");
      }
      load.await("DONE", Duration.ofSeconds(200));
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
      Report.row("broker kill + restart", w, restarts, v);
      assertThat(v.facts()).isGreaterThan(0);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }

  /**
   * The whole cluster (NameServer, broker, proxy) SIGSTOPped, not killed, while a producer commits
   * and consumers consume, then SIGCONTed: sends and receives time out meanwhile, connections stay
   * open, and afterwards every committed fact is delivered and applied once.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void brokerPausedWhileAProducerCommitsAndConsumersConsume(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind, cluster)) {
      w.consumers();
      Child load =
          w.producer(
              "load",
              "count",
              Integer.toString(Scale.pick(300, 1200)),
              "rate",
              "30",
              "stay",
              "true");
      int pauses = Scale.pick(1, 3);
      Duration pause = Duration.ofSeconds(Scale.pick(10, 30));
      for (int i = 0; i < pauses; i++) {
        Thread.sleep(3_000);
        Child.signal("STOP", w.mq.pid());
        w.faultStarted(World.Fault.SILENT);
        try {
          Thread.sleep(pause.toMillis());
        } finally {
          Child.signal("CONT", w.mq.pid());
          w.faultEnded();
        }
      }
      load.await("DONE", Duration.ofSeconds(Scale.pick(240, 600)));
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
      Report.row("broker paused " + pause.toSeconds() + " s (SIGSTOP)", w, pauses, v);
      assertThat(v.facts()).isGreaterThan(0);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }
}
