package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.reliability.ProducerMain.CrashPoint;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The broker gives up on the half messages of a producer that died after its local commit, with no
 * producer alive to answer check-backs: only the journal can still deliver them.
 */
class BrokerGiveUpTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  @ParameterizedTest
  @MethodSource(DB)
  void brokerGivesUpOnHalfMessagesOfADeadProducerAndTheReconcilerDelivers(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      w.consumers();
      int kills = Scale.pick(1, 5);
      long next = 0;
      java.util.Map<String, Long> killed = new java.util.LinkedHashMap<>();
      for (int i = 0; i < kills; i++) {
        Child p =
            w.producer(
                "doomed-" + i,
                "start",
                Long.toString(next),
                "count",
                "5",
                "crash",
                CrashPoint.AFTER_LOCAL_COMMIT.name(),
                "crashAt",
                Long.toString(next + 2));
        p.await("CRASHPOINT", Duration.ofSeconds(60));
        killed.put("f-" + (next + 2), System.currentTimeMillis());
        p.kill();
        next += 10;
      }
      // Nobody answers: transactionCheckMax (15) checks at 1 s go unanswered and the broker moves
      // the half messages to its give-up topic. Only the journal can still deliver them.
      Thread.sleep(20_000);
      Child restarted =
          w.producer("restarted", "start", Long.toString(next), "count", "3", "stay", "true");
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 180)), 0);
      for (var k : killed.entrySet()) {
        w.recovery(k.getKey(), k.getValue());
      }
      // Over remoting the restarted producer's give-up drain republishes them; over gRPC (the proxy
      // cannot read the give-up topic) its reconciler does, after republishAfter.
      Report.row(
          "broker gives up (no producer 20 s), "
              + (transport == TestTransport.REMOTING ? "give-up drain" : "reconciler"),
          w,
          kills,
          v);
      restarted.kill();
      assertThat(v.clean()).as(v.toString()).isTrue();
      assertThat(w.recoveryMillis).hasSize(kills);
    }
  }
}
