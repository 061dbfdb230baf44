package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A producer JVM SIGSTOPped at two points of one fact while a second producer of the same store
 * answers check-backs, then SIGCONTed: after its half message, past the fence window (it must be
 * fenced: AttemptFencedException, no business row, nothing delivered), and inside its local
 * transaction with its attempt key locked (check-backs cannot fence it; on resume it commits and is
 * delivered, or its local-transaction timeout has passed and it rolls back: never both, never
 * neither).
 */
class ProducerPauseTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  /** The paused producer's local-transaction timeout: short, so that one pause outlasts it. */
  private static final String LOCAL_TX_TIMEOUT_MS = "12000";

  /**
   * Remoting only. Over gRPC this case failed once in CI (2026-12-04, after passing three times):
   * no FENCED attempt row appeared within 60 s, so the live producer never got a check-back for the
   * paused producer's half message while that producer was stopped but still connected. The likely
   * cause is the broker's one round-robin counter for all check-backs, which can ask a message on
   * the stopped client's channel on every pass (docs/reliability.md, "Paused processes"). The
   * hung-instance takeover does not change this case: it republishes committed rows, and f-1 never
   * committed, so only a check-back answered by the live producer can fence it (HungProducerTest
   * measured three checks in a row going to stopped producers over gRPC).
   */
  static Stream<Arguments> remotingWithDatabases() {
    return TestTransport.realWithDatabases().filter(a -> a.get()[0] == TestTransport.REMOTING);
  }

  @ParameterizedTest
  @MethodSource("remotingWithDatabases")
  void pausedAfterItsHalfMessagePastTheFenceWindowIsFencedAndNothingIsDelivered(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      Child alive = w.producer("producer-alive", "count", "0");
      Child consumer = w.consumer("consumer");
      Child paused =
          w.producer(
              "producer-paused",
              "count",
              "4",
              "rate",
              "20",
              "crash",
              "PAUSE_AFTER_HALF_SEND",
              "crashAt",
              "1");
      paused.await("CRASHPOINT", Duration.ofSeconds(60));
      paused.pause();
      w.faultStarted(World.Fault.SILENT);
      // The live producer's check-backs find no attempt row and fence it (fenceAfterChecks 2).
      w.awaitAttemptState("f-1", "FENCED", Duration.ofSeconds(60));
      paused.resume();
      w.faultEnded();
      assertThat(paused.awaitAny(Duration.ofSeconds(60), "COMMITTED f-1", "FAILED f-1"))
          .isEqualTo("FAILED f-1 AttemptFencedException");
      paused.await("DONE", Duration.ofSeconds(60));
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 240)), 0);
      Report.row("producer paused after its half message past the fence window", w, 1, v);
      // The fence came from the live producer's check-back (the attempt row says FENCED; its
      // meter says it was this producer's answer).
      Child.Meters m = alive.meters();
      System.out.println("METERS " + m);
      assertThat(m.sum("txmsg.checkback", "resolution=ROLLBACK", "reason=fenced"))
          .as("check-backs the live producer answered by fencing: " + m)
          .isPositive();
      consumer.kill();
      alive.kill();
      assertThat(v.facts()).as("f-0, f-2, f-3; f-1 fenced").isEqualTo(3);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void pausedInsideItsLocalTransactionCommitsOrRollsBackNeverBoth(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (World w = new World(transport, kind)) {
      Child alive = w.producer("producer-alive", "count", "0");
      Child consumer = w.consumer("consumer");
      // 2 s (+ the 3 s pause window) stays inside the 12 s local-transaction timeout: committed.
      // 15 s outlasts it: rolled back on resume. The live producer's check-backs meanwhile wait on
      // the locked attempt key and answer UNKNOWN; they never fence a transaction still open.
      String shortPause = pauseInLocalTx(w, "short", 0, Duration.ofSeconds(2));
      String longPause = pauseInLocalTx(w, "long", 10, Duration.ofSeconds(15));
      assertThat(shortPause).isEqualTo("COMMITTED f-1");
      assertThat(longPause).isEqualTo("FAILED f-11 TransactionRolledBackException");
      World.Verdict v = w.awaitQuiet(Duration.ofSeconds(Scale.pick(90, 240)), 0);
      Report.row("producer paused inside its local transaction (2 s, 15 s)", w, 2, v);
      consumer.kill();
      alive.kill();
      assertThat(v.facts()).as("4 + 4 facts, f-11 rolled back").isEqualTo(7);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }

  /** One producer of 4 facts from {@code start}, paused inside fact start + 1; its outcome line. */
  private static String pauseInLocalTx(World w, String name, long start, Duration pause)
      throws Exception {
    Child paused =
        w.producer(
            "producer-paused-" + name,
            "start",
            Long.toString(start),
            "count",
            "4",
            "rate",
            "20",
            "crash",
            "PAUSE_IN_LOCAL_TX",
            "crashAt",
            Long.toString(start + 1),
            "localTxTimeoutMs",
            LOCAL_TX_TIMEOUT_MS);
    paused.await("CRASHPOINT", Duration.ofSeconds(60));
    paused.pause();
    w.faultStarted(World.Fault.SILENT);
    Thread.sleep(pause.toMillis());
    paused.resume();
    w.faultEnded();
    String fact = "f-" + (start + 1);
    String outcome = paused.awaitAny(Duration.ofSeconds(60), "COMMITTED " + fact, "FAILED " + fact);
    paused.await("DONE", Duration.ofSeconds(60));
    return outcome;
  }
}
