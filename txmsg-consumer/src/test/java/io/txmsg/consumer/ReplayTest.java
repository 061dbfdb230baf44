package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.DB;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.DeadLetterRow;
import io.txmsg.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Replay of parked events through the same pipeline. */
class ReplayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @ParameterizedTest
  @MethodSource(DB)
  void aRedeliveryRacingAReplayOfTheSameParkedEventAppliesItOnce(TestDatabase kind)
      throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(kind)) {
      String g = h.group("points", 5);
      AtomicBoolean fixed = new AtomicBoolean();
      AtomicInteger applied = new AtomicInteger();
      CountDownLatch replayInHandler = new CountDownLatch(1);
      TxConsumers c =
          h.start(
              h.consumers(h.settings(g))
                  .handler(
                      HandlerDefinition.of(
                          g,
                          h.topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (event, ctx) -> {
                            if (!fixed.get()) {
                              throw new PermanentConsumeException("bug before the fix");
                            }
                            ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                            applied.incrementAndGet();
                            if (ctx.replay()) {
                              replayInHandler.countDown();
                              Thread.sleep(1500); // hold the claim while the redelivery arrives
                            }
                          })));
      h.sendPaid("r1", "p1", 1, 3);
      awaitDb("parked", WAIT, () -> !h.deadLetters(g, "r1").isEmpty());
      fixed.set(true);
      Thread replay =
          new Thread(
              () ->
                  assertThat(c.replay(g, "r1", "req-1").status())
                      .isEqualTo(ReplayResult.Status.REPLAYED));
      replay.start();
      replayInHandler.await();
      h.sendPaid("r1", "p1", 1, 3); // the broker redelivers the same event meanwhile
      replay.join();
      ConsumerHarness.quiet(Duration.ofSeconds(3));
      h.assertAppliedOnce(g, "r1");
      assertThat(applied.get()).isEqualTo(1);
      DeadLetterRow dl = h.deadLetters(g, "r1").get(0);
      assertThat(dl.getStatus()).isEqualTo("REPLAYED");
      assertThat(dl.getReplayRequestId()).isEqualTo("req-1");
      assertThat(c.replay(g, "r1", "req-2").status()).isEqualTo(ReplayResult.Status.NOT_REPLAYABLE);
      assertThat(h.credits(g, "r1")).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aReplayThatFailsAgainLeavesTheDeadLetterParkedWithTheNewError(TestDatabase kind)
      throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(kind)) {
      String g = h.group("points", 5);
      AtomicInteger calls = new AtomicInteger();
      TxConsumers c =
          h.start(
              h.consumers(h.settings(g))
                  .handler(
                      HandlerDefinition.of(
                          g,
                          h.topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (event, ctx) -> {
                            ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                            throw new PermanentConsumeException(
                                "still broken " + calls.incrementAndGet());
                          })));
      h.sendPaid("f1", "p1", 1, 3);
      awaitDb("parked", WAIT, () -> !h.deadLetters(g, "f1").isEmpty());
      ReplayResult r = c.replay(g, "f1", "req-1");
      assertThat(r.status()).isEqualTo(ReplayResult.Status.FAILED);
      DeadLetterRow dl = h.deadLetters(g, "f1").get(0);
      assertThat(dl.getStatus()).isEqualTo("PARKED");
      assertThat(dl.getErrorMessage()).contains("still broken 2");
      assertThat(h.consumeLog(g, "f1").getStatus()).isEqualTo("PARKED");
      assertThat(h.credits(g, "f1")).isZero();
    }
  }
}
