package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.REAL;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetterStatus;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Replay of parked events through the same pipeline. */
class ReplayTest {
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  @ParameterizedTest
  @MethodSource(REAL)
  void aRedeliveryRacingAReplayOfTheSameParkedEventAppliesItOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
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
      awaitDb(
          () -> "r1 parked; outcomes " + h.outcomesOf("r1"),
          WAIT,
          () -> !h.deadLetters(g, "r1").isEmpty());
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
      assertThat(dl.getStatus()).isEqualTo(DeadLetterStatus.REPLAYED);
      assertThat(dl.getReplayRequestId()).isEqualTo("req-1");
      assertThat(c.replay(g, "r1", "req-2").status()).isEqualTo(ReplayResult.Status.NOT_REPLAYABLE);
      assertThat(h.credits(g, "r1")).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aReplayThatFailsAgainLeavesTheDeadLetterParkedWithTheNewError(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
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
      awaitDb(
          () -> "f1 parked; outcomes " + h.outcomesOf("f1"),
          WAIT,
          () -> !h.deadLetters(g, "f1").isEmpty());
      ReplayResult r = c.replay(g, "f1", "req-1");
      assertThat(r.status()).isEqualTo(ReplayResult.Status.FAILED);
      DeadLetterRow dl = h.deadLetters(g, "f1").get(0);
      assertThat(dl.getStatus()).isEqualTo(DeadLetterStatus.PARKED);
      assertThat(dl.getErrorMessage()).contains("still broken 2");
      assertThat(h.consumeLog(g, "f1").getStatus()).isEqualTo(ConsumeStatus.PARKED);
      assertThat(h.credits(g, "f1")).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aTooOldEventIsParkedAndItsReplayChecksTheConsumeLogArchiveFirst(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 5);
      AtomicInteger runs = new AtomicInteger();
      TxConsumers c =
          h.start(
              h.consumers(
                      h.settings(g)
                          .consumeLogRetention(Duration.ofDays(2))
                          .tooOldMargin(Duration.ofDays(1)))
                  .handler(
                      HandlerDefinition.of(
                          g,
                          h.topic,
                          "PaymentSucceeded",
                          Paid.class,
                          (event, ctx) -> {
                            runs.incrementAndGet();
                            ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                          })));
      long threeDaysAgo = System.currentTimeMillis() - Duration.ofDays(3).toMillis();
      for (String id : java.util.List.of("old-new", "old-dup")) {
        byte[] body = ConsumerHarness.paid("a", 1);
        java.util.Map<String, String> env =
            new java.util.HashMap<>(
                ConsumerHarness.envelope(id, "PaymentSucceeded", "Payment", id, 1, body));
        env.put(io.txmsg.api.Envelope.ORIGIN_TIME, Long.toString(threeDaysAgo));
        h.send(env, body);
      }
      awaitDb(
          () -> "both parked TOO_OLD; outcomes " + h.outcomesOf("old-new", "old-dup"),
          WAIT,
          () -> !h.deadLetters(g, "old-new").isEmpty() && !h.deadLetters(g, "old-dup").isEmpty());
      assertThat(h.deadLetters(g, "old-new").get(0).getReason()).isEqualTo(ParkReason.TOO_OLD);
      assertThat(runs.get()).isZero();
      // old-dup was applied long ago: its consume-log row is in the archive.
      String hash = h.deadLetters(g, "old-dup").get(0).getRequestHash();
      try (java.sql.Connection conn = h.db.dataSource().getConnection();
          java.sql.PreparedStatement ps =
              conn.prepareStatement(
                  "INSERT INTO txmsg_consume_log_archive (consumer_group, event_id, event_type,"
                      + " request_hash, status, attempt, first_received_at, updated_at)"
                      + " VALUES (?, 'old-dup', 'PaymentSucceeded', ?, 'SUCCESS', 1,"
                      + " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")) {
        ps.setString(1, g);
        ps.setString(2, hash);
        ps.executeUpdate();
      }
      assertThat(c.replay(g, "old-dup", "req-1").status()).isEqualTo(ReplayResult.Status.DUPLICATE);
      assertThat(h.deadLetters(g, "old-dup").get(0).getStatus())
          .isEqualTo(DeadLetterStatus.DISCARDED);
      assertThat(c.replay(g, "old-new", "req-1").status()).isEqualTo(ReplayResult.Status.REPLAYED);
      assertThat(runs.get()).isEqualTo(1);
      h.assertAppliedOnce(g, "old-new");
      assertThat(h.credits(g, "old-dup")).isZero();
    }
  }
}
