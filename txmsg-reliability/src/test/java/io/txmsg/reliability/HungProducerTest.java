package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Check-back liveness with two hung producer instances of one store, on a broker with production
 * check timing (first check of a half message after transactionTimeOut 6 s, then every
 * transactionCheckInterval: 60 s here, the 4.x default and twice 5.x's 30 s; {@code
 * -Dtxmsg.reliability.checkIntervalMs} changes it) and txmsg's production defaults (heartbeat 5 s,
 * instanceStaleAfter 30 s, republishAfter 10 minutes).
 *
 * <p>One producer stays alive. One is SIGSTOPped after its local commit, before END_TRANSACTION
 * (committed, half message unresolved, connection open); another after its half message, before its
 * local transaction (nothing committed). Both stay stopped while the scenario watches: the
 * committed event must be delivered by the live producer within 60 s, which the broker's check
 * timing alone cannot promise (its first check may come 66 s after the send, and may go to the
 * stopped producer's channel on every pass); the uncommitted one must not be delivered. Asserted
 * from the journal row (INSTANCE_STALE) and the live producer's meters: the takeover meter, or a
 * check-back it answered COMMIT (the other way a live instance can deliver it). Then both resume;
 * the check-backs each producer answered are printed (the stopped ones answer theirs on resume),
 * and the checker's verdict must be clean.
 */
@Execution(ExecutionMode.SAME_THREAD)
class HungProducerTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  private static final long CHECK_INTERVAL_MS =
      Long.getLong("txmsg.reliability.checkIntervalMs", 60_000);

  private static EmbeddedRocketMQ cluster;

  @BeforeAll
  static void startOwnCluster() {
    cluster =
        EmbeddedRocketMQ.builder()
            .transactionCheckInterval(Duration.ofMillis(CHECK_INTERVAL_MS))
            .transactionTimeout(Duration.ofSeconds(6))
            .start();
  }

  @AfterAll
  static void stopOwnCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * The experiment's "before" (the takeover off) on every transport and database, only with {@code
   * -Dtxmsg.reliability.experiment=true}; otherwise no case at all (not a case that passes doing
   * nothing).
   */
  static Stream<Arguments> withoutTakeover() {
    if (!Boolean.getBoolean("txmsg.reliability.experiment")) {
      return Stream.empty();
    }
    return TestTransport.realWithDatabases();
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aHungInstancesCommittedEventIsDeliveredByALiveInstanceWithin60sAndItsHalfNever(
      TestTransport transport, TestDatabase kind) throws Exception {
    run(transport, kind, true);
  }

  /**
   * The experiment without the takeover (staleAfterMs=0 on every producer): what the broker's
   * check-backs alone do with the same faults. Runs only with {@code
   * -Dtxmsg.reliability.experiment=true}; it asserts nothing about time, only prints what happened.
   */
  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("withoutTakeover")
  void experiment(TestTransport transport, TestDatabase kind) throws Exception {
    run(transport, kind, false);
  }

  private void run(TestTransport transport, TestDatabase kind, boolean takeover) throws Exception {
    String label = (takeover ? "takeover" : "no-takeover") + " checkInterval=" + CHECK_INTERVAL_MS;
    try (World w = new World(transport, kind, cluster)) {
      w.consumers();
      String[] product = {
        "republishAfterMs",
        "600000",
        "staleAfterMs",
        takeover ? "30000" : "0",
        "pauseUntilContinue",
        "true",
        "stay",
        "true"
      };
      Child alive = w.producer("producer-alive", concat(product, "count", "0"));
      Child committed =
          w.producer(
              "producer-hung-committed",
              concat(
                  product,
                  "count",
                  "3",
                  "rate",
                  "20",
                  "crash",
                  "PAUSE_AFTER_LOCAL_COMMIT",
                  "crashAt",
                  "1"));
      committed.await("CRASHPOINT", Duration.ofSeconds(60));
      committed.pause();
      long pausedAt = System.currentTimeMillis();
      Child half =
          w.producer(
              "producer-hung-half",
              concat(
                  product,
                  "start",
                  "10",
                  "count",
                  "3",
                  "rate",
                  "20",
                  "crash",
                  "PAUSE_AFTER_HALF_SEND",
                  "crashAt",
                  "11"));
      half.await("CRASHPOINT", Duration.ofSeconds(60));
      half.pause();
      w.faultStarted(World.Fault.SILENT);
      assertThat(w.committed(List.of("f-1"))).as("f-1 committed before the pause").hasSize(1);

      // Watch for up to 60 s (takeover) or 150 s (without it) after the pause.
      long watch = takeover ? 60_000 : 150_000;
      boolean delivered = false;
      while (System.currentTimeMillis() - pausedAt < watch && !delivered) {
        delivered = applied(w, "f-1");
        Thread.sleep(250);
      }
      long deliveredAfter = System.currentTimeMillis() - pausedAt;
      var row = w.journalRow("f-1");
      Child.Meters aliveMeters = alive.meters();
      long takenOver = aliveMeters.sum("txmsg.instance.takeover");
      long aliveCommits = aliveMeters.sum("txmsg.checkback", "resolution=COMMIT");
      boolean halfApplied = applied(w, "f-11");
      boolean halfCommitted = !w.committed(List.of("f-11")).isEmpty();
      System.out.printf(
          "EXPERIMENT %s transport=%s db=%s f-1 delivered=%s after=%d ms journal=%s code=%s"
              + " aliveTakeoverRows=%d aliveCheckbacks=%s f-11 committed=%s applied=%s%n",
          label,
          transport,
          kind.id(),
          delivered,
          delivered ? w.appliedMillis("f-1") - pausedAt : -1,
          row.getStatus(),
          row.getLastErrorCode(),
          takenOver,
          aliveMeters.counts().entrySet().stream()
              .filter(e -> e.getKey().startsWith("txmsg.checkback"))
              .toList(),
          halfCommitted,
          halfApplied);
      if (delivered) {
        w.recovery("f-1", pausedAt);
      }

      // Resume both: each answers the check-backs queued for it meanwhile and finishes its facts.
      committed.resume();
      half.resume();
      committed.send("CONTINUE");
      half.send("CONTINUE");
      w.faultEnded();
      String halfOutcome = half.awaitAny(Duration.ofSeconds(60), "COMMITTED f-11", "FAILED f-11");
      committed.await("DONE", Duration.ofSeconds(60));
      half.await("DONE", Duration.ofSeconds(60));
      Thread.sleep(2_000);
      for (Child c : List.of(alive, committed, half)) {
        Child.Meters m = c.meters();
        System.out.printf(
            "EXPERIMENT %s transport=%s checkbacks %s: %s takeover=%d republished=%d%n",
            label,
            transport,
            m.child(),
            m.counts().entrySet().stream()
                .filter(e -> e.getKey().startsWith("txmsg.checkback"))
                .toList(),
            m.sum("txmsg.instance.takeover"),
            m.sum("txmsg.reconcile.republished"));
      }
      System.out.printf(
          "EXPERIMENT %s transport=%s f-11 after resume: %s (watched %d ms)%n",
          label, transport, halfOutcome, deliveredAfter);
      // An early verdict, not awaitQuiet's: with production check timing nothing is settled
      // before the broker's check window (6 s + 15 × 60 s) and republishAfter (10 minutes) have
      // passed, far too long for CI. What can still arrive later is a duplicate of an event
      // already applied (a half message committed by a late check-back), which the consumers'
      // dedup absorbs; docs/reliability.md says this row's verdict is taken early.
      w.awaitClean(Duration.ofSeconds(takeover ? 120 : 240), 0);
      World.Verdict v = w.check(0);
      Report.row("producer hung after local commit and after half, " + label, w, 2, v);
      for (Child c : List.of(alive, committed, half)) {
        c.kill();
      }
      if (takeover) {
        assertThat(delivered)
            .as("f-1 delivered by the live producer within 60 s of the pause")
            .isTrue();
        // The path: the takeover (journal row and meter), or a check-back the live instance
        // answered COMMIT; never the stopped producer (it sent nothing while stopped).
        assertThat(
                ("INSTANCE_STALE".equals(row.getLastErrorCode()) && takenOver >= 1)
                    || aliveCommits >= 1)
            .as("delivered by the takeover or the live producer's check-back: " + aliveMeters)
            .isTrue();
        assertThat(halfApplied).as("f-11 (uncommitted while stopped) not delivered").isFalse();
        assertThat(halfCommitted).as("f-11 not committed while stopped").isFalse();
      }
      assertThat(List.of(v.lost(), v.phantom(), v.duplicate())).as(v.toString()).containsOnly(0L);
      assertThat(v.clean()).as(v.toString()).isTrue();
    }
  }

  private static boolean applied(World w, String fact) throws Exception {
    return w.appliedMillis(fact) >= 0;
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
