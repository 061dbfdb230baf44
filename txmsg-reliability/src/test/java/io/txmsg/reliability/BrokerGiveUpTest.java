package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.reliability.ProducerMain.CrashPoint;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
      // Long scale: 20 producers die at the same moment, so each recovery sample measures the
      // same thing (the broker's give-up, the 20 s without a producer, the journal's delivery)
      // instead of also the time the loop took to kill the producers after it.
      int kills = Scale.kills(1, 20);
      // They start five at a time: twenty JVMs starting at once on two cores time out their
      // clients' first broker calls.
      List<Child> doomed = new ArrayList<>();
      for (int wave = 0; wave < kills; wave += 5) {
        List<Child> starting = new ArrayList<>();
        for (int i = wave; i < Math.min(kills, wave + 5); i++) {
          long first = i * 10L;
          starting.add(
              w.startProducer(
                  "doomed-" + i,
                  "start",
                  Long.toString(first),
                  "count",
                  "5",
                  "crash",
                  CrashPoint.AFTER_LOCAL_COMMIT.name(),
                  "crashAt",
                  Long.toString(first + 2),
                  "awaitGo",
                  "true",
                  "pool",
                  "2"));
        }
        for (Child p : starting) {
          p.await("READY", Duration.ofSeconds(120));
        }
        doomed.addAll(starting);
      }
      for (Child p : doomed) {
        p.send("GO");
      }
      // Each is killed as soon as it reaches its crash point (one waiter each), well within the
      // broker's 2 s before its first check-back, which the doomed producer would still answer.
      Map<String, Long> killed = new ConcurrentHashMap<>();
      ExecutorService killers = Executors.newFixedThreadPool(kills);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < kills; i++) {
          Child p = doomed.get(i);
          String fact = "f-" + (i * 10L + 2);
          done.add(
              killers.submit(
                  () -> {
                    p.await("CRASHPOINT", Duration.ofSeconds(60));
                    killed.put(fact, System.currentTimeMillis());
                    p.kill();
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        killers.shutdownNow();
      }
      long next = kills * 10L;
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
