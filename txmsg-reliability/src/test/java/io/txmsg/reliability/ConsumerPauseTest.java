package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A consumer JVM SIGSTOPped inside a handler (its claim and writes uncommitted, its client silent)
 * while another instance of the same groups runs, then SIGCONTed 30 s later (two leases). Over gRPC
 * the paused client's leases (15 s, leased delivery) run out meanwhile and its messages go to the
 * other instance; its claim of the paused fact waits on, or retries behind, the paused
 * transaction's lock, so the resumed instance applies it and the other finds the claim. Every fact
 * is applied once, and over gRPC the other instance did receive the very event the paused one was
 * inside: it reports an outcome for it (RETRY while the lock is held on H2, whose claim gives up
 * after its LOCK_TIMEOUT; DUPLICATE once the paused one committed), never APPLIED. The outcome is
 * awaited, bounded, after the facts are quiet: a RETRY's backoff (up to 2 s) can put the other's
 * DUPLICATE after the paused one's commit. Over remoting there is no lease: the other instance
 * pulls from the queues its rebalance gives it at start, and the paused client keeps the rest until
 * the broker expires its channel (120 s by default), so whether it gets the paused fact depends on
 * the queue; only the checker's verdict is asserted there.
 */
class ConsumerPauseTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";
  private static final Duration PAUSE = Duration.ofSeconds(30);

  /**
   * How long after the facts are quiet the other instance's outcome for the paused event may lag.
   */
  private static final Duration TAKE_OVER_WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @MethodSource(DB)
  void pausedMidHandlerPastItsLeaseWhileAnotherInstanceTakesOverThenResumedAppliesOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      Child producer = w.producer("producer", "count", "0");
      int rounds = Scale.pick(1, 5);
      long next = 0;
      List<String> notTakenOver = new ArrayList<>();
      World.Verdict v = null;
      for (int round = 0; round < rounds; round++) {
        long pauseAt = next + 3;
        Child paused =
            w.consumer(
                "consumer-paused-" + round,
                "crash",
                "PAUSE_MID_HANDLER",
                "crashAt",
                Long.toString(pauseAt));
        Child load =
            w.producer(
                "load-pause-" + round, "start", Long.toString(next), "count", "8", "rate", "50");
        String marker = paused.await("CRASHPOINT", Duration.ofSeconds(60));
        String pausedEvent = marker.substring(marker.lastIndexOf(' ') + 1);
        w.watch(w.points, pausedEvent);
        paused.pause();
        w.faultStarted(World.Fault.SILENT);
        // Started only now, so that the paused instance is the one that took the paused fact.
        TxConsumers other = w.consumers();
        load.await("DONE", Duration.ofSeconds(60));
        Thread.sleep(PAUSE.toMillis());
        paused.resume();
        w.faultEnded();
        v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(120, 300)), 0);
        if (transport == TestTransport.GRPC) {
          List<ConsumeOutcome> seen = awaitOutcomes(w, w.points, pausedEvent, TAKE_OVER_WAIT);
          System.out.println(
              "the other instance's outcomes for paused " + pausedEvent + ": " + seen);
          assertThat(seen)
              .as("outcomes the other instance reported for the paused event " + pausedEvent)
              .doesNotContain(ConsumeOutcome.APPLIED);
          if (seen.isEmpty()) {
            notTakenOver.add(pausedEvent);
          }
        }
        // Both leave before the next round, whose paused instance must again take its fact.
        other.close();
        paused.kill();
        w.fault(World.Fault.KILL);
        next += 10;
      }
      Report.row("consumer paused mid-handler 30 s, another instance running", w, rounds, v);
      producer.kill();
      assertThat(v.facts()).isEqualTo(rounds * 8L);
      assertThat(v.clean()).as(v.toString()).isTrue();
      assertThat(notTakenOver)
          .as("paused events the other instance never received within " + TAKE_OVER_WAIT)
          .isEmpty();
    }
  }

  /**
   * The other instance's outcomes for {@code eventId}, once there is one or {@code wait} passed.
   */
  private static List<ConsumeOutcome> awaitOutcomes(
      World w, String group, String eventId, Duration wait) throws InterruptedException {
    long until = System.nanoTime() + wait.toNanos();
    List<ConsumeOutcome> seen = w.outcomesOf(group, eventId);
    while (seen.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(200);
      seen = w.outcomesOf(group, eventId);
    }
    return seen;
  }
}
