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
 * producer alive to answer check-backs: only the journal can still deliver them. Asserted from the
 * restarted producer's meters: its reconciler republished every one of them ({@code
 * txmsg.reconcile.republished}, which also counts the republishes the give-up drain asks it for);
 * over remoting its give-up drain read every one of them from the broker's give-up topic ({@code
 * txmsg.giveup} with an outcome other than {@code foreign}), which proves the broker gave up. Which
 * of the two republishes a row is a race: by the restart the rows are past republishAfter, so the
 * reconciler's next pass usually takes them before the drain consumer has its queues, and the drain
 * then finds them settled. Over gRPC the proxy cannot read the give-up topic, so only the
 * reconciler delivers. The producer restarts only once the broker has given up on every half
 * message of the killed producers ({@link io.txmsg.testkit.rocketmq.EmbeddedRocketMQ#givenUp}), so
 * no check-back can reach it: over both transports the broker's give-up is asserted, not inferred
 * from timing.
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
                    w.fault(World.Fault.KILL);
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
      // the half messages to its give-up topic. Only the journal can still deliver them. The 20 s
      // are the scenario's documented outage; the producer then starts only once the broker has
      // given up on every one of them, which a busy broker's check thread may take longer to do:
      // started earlier, it would answer the last check-backs itself (COMMIT) and this scenario
      // would test the check-back instead.
      Thread.sleep(20_000);
      awaitGivenUp(w, kills, Duration.ofSeconds(Scale.pick(60, 120)));
      if (transport == TestTransport.REMOTING) {
        w.expectGiveUpDrain(); // the restarted producer's drain must have read the give-up topic
      }
      Child restarted =
          w.producer("restarted", "start", Long.toString(next), "count", "3", "stay", "true");
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 180)), 0);
      for (var k : killed.entrySet()) {
        w.recovery(k.getKey(), k.getValue());
      }
      Child.Meters m = restarted.meters();
      System.out.println("METERS " + m);
      long drained =
          m.sum("txmsg.giveup", "outcome=republished")
              + m.sum("txmsg.giveup", "outcome=settled")
              + m.sum("txmsg.giveup", "outcome=retry")
              + m.sum("txmsg.giveup", "outcome=dead")
              + m.sum("txmsg.giveup", "outcome=no_row");
      Report.row(
          "broker gives up (no producer 20 s), reconciler"
              + (transport == TestTransport.REMOTING
                  ? " / give-up drain (drain republished "
                      + m.sum("txmsg.giveup", "outcome=republished")
                      + ", found settled "
                      + m.sum("txmsg.giveup", "outcome=settled")
                      + ")"
                  : ""),
          w,
          kills,
          v);
      restarted.kill();
      assertThat(v.clean()).as(v.toString()).isTrue();
      assertThat(w.recoveryMillis).hasSize(kills);
      assertThat(m.sum("txmsg.reconcile.republished"))
          .as("rows the restarted producer republished from the journal: " + m)
          .isGreaterThanOrEqualTo(kills);
      assertThat(m.sum("txmsg.checkback", "resolution=COMMIT"))
          .as("check-backs answered COMMIT (the broker had stopped checking): " + m)
          .isZero();
      if (transport == TestTransport.REMOTING) {
        assertThat(drained)
            .as("given-up half messages of this store the give-up drain read: " + m)
            .isGreaterThanOrEqualTo(kills);
      }
    }
  }

  /**
   * Waits until the broker has moved {@code expected} half messages of the world's topic to its
   * give-up topic.
   */
  private static void awaitGivenUp(World w, int expected, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long givenUp;
    while ((givenUp = w.mq.givenUp(w.topic)) < expected) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the broker gave up on "
                + givenUp
                + " of the "
                + expected
                + " half messages of the killed producers within "
                + timeout
                + " after the 20 s outage (transactionCheckMax "
                + w.mq.brokerSetting("transactionCheckMax")
                + ", transactionCheckInterval "
                + w.mq.brokerSetting("transactionCheckInterval")
                + " ms)");
      }
      Thread.sleep(200);
    }
  }
}
