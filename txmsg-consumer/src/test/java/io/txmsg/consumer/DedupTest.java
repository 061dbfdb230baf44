package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The consume-log claim: duplicates, concurrent consumers, several groups, conflicts. */
class DedupTest {
  /** Every test runs on every transport (in-memory and gRPC) × every enabled database. */
  private static final String TRANSPORTS = "io.txmsg.testkit.transport.TestTransport#withDatabases";

  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void duplicateDeliveriesAndARedeliveryAfterALostAckRunTheHandlerOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 5);
      Map<String, Integer> runs = new ConcurrentHashMap<>();
      h.start(
          h.consumers(h.settings(points))
              .handler(
                  HandlerDefinition.of(
                      points,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        runs.merge(ctx.eventId(), 1, Integer::sum);
                        ConsumerHarness.credit(ctx.connection(), points, ctx.eventId(), event);
                        ctx.resultRef("credit-" + ctx.eventId());
                      })));
      // e1: the same message sent three times. e2: its first ack is lost (crash after commit).
      Set<String> lostAck = ConcurrentHashMap.newKeySet();
      h.dropAck = id -> id.equals("e2") && lostAck.add(id);
      byte[] body = ConsumerHarness.paid("a1", 10);
      Map<String, String> e1 =
          ConsumerHarness.envelope("e1", "PaymentSucceeded", "Payment", "p1", 1, body);
      for (int i = 0; i < 3; i++) {
        h.send(e1, body);
      }
      h.sendPaid("e2", "p2", 1, 20);

      await(
          "3 copies of e1 and the redelivered e2 settled",
          WAIT,
          () ->
              h.outcome(points, ConsumeOutcome.APPLIED)
                      + h.outcome(points, ConsumeOutcome.DUPLICATE)
                  >= 5);
      ConsumerHarness.quiet(Duration.ofSeconds(2));
      h.assertAppliedOnce(points, "e1");
      h.assertAppliedOnce(points, "e2");
      assertThat(runs).containsEntry("e1", 1).containsEntry("e2", 1);
      assertThat(h.outcome(points, ConsumeOutcome.DUPLICATE)).isEqualTo(3);
      assertThat(h.consumeLog(points, "e1").getResultRef()).isEqualTo("credit-e1");
      assertThat(h.consumeLog(points, "e2").getAttempt()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void twoConsumersOfOneGroupReceivingTheSameEventsConcurrentlyApplyEachOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 5);
      for (int i = 0; i < 2; i++) {
        h.start(
            h.consumers(h.settings(points))
                .handler(
                    HandlerDefinition.of(
                        points,
                        h.topic,
                        "PaymentSucceeded",
                        Paid.class,
                        (event, ctx) -> {
                          ConsumerHarness.credit(ctx.connection(), points, ctx.eventId(), event);
                          Thread.sleep(50); // keep the claim open so that copies overlap
                        })));
      }
      int events = 20;
      int copies = 3;
      for (int i = 0; i < events; i++) {
        byte[] body = ConsumerHarness.paid("a" + i, i);
        Map<String, String> env =
            ConsumerHarness.envelope("c" + i, "PaymentSucceeded", "Payment", "p" + i, 1, body);
        for (int k = 0; k < copies; k++) {
          h.send(env, body);
        }
      }
      await(
          "all copies settled",
          Duration.ofSeconds(60),
          () ->
              h.outcome(points, ConsumeOutcome.APPLIED)
                      + h.outcome(points, ConsumeOutcome.DUPLICATE)
                  >= events * copies);
      ConsumerHarness.quiet(Duration.ofSeconds(1));
      for (int i = 0; i < events; i++) {
        h.assertAppliedOnce(points, "c" + i);
      }
      assertThat(h.outcome(points, ConsumeOutcome.APPLIED)).isEqualTo(events);
      assertThat(h.count("SELECT COUNT(*) FROM points_credit")).isEqualTo(events);
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void differentGroupsEachApplyTheEventOnce(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 5);
      String audit = h.group("audit", 5);
      h.start(
          h.consumers(h.settings(points, audit))
              .handler(
                  HandlerDefinition.of(
                      points, h.topic, "PaymentSucceeded", Paid.class, ConsumerHarness.credits()))
              .handler(
                  HandlerDefinition.of(
                      audit, h.topic, "PaymentSucceeded", Paid.class, ConsumerHarness.credits())));
      h.sendPaid("g1", "p1", 1, 5);
      h.sendPaid("g1", "p1", 1, 5); // a duplicate reaches both groups
      awaitDb(
          "both groups applied",
          WAIT,
          () -> h.credits(points, "g1") == 1 && h.credits(audit, "g1") == 1);
      await(
          "duplicates absorbed",
          WAIT,
          () ->
              h.outcome(points, ConsumeOutcome.DUPLICATE) == 1
                  && h.outcome(audit, ConsumeOutcome.DUPLICATE) == 1);
      h.assertAppliedOnce(points, "g1");
      h.assertAppliedOnce(audit, "g1");
    }
  }

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void sameEventIdWithAnotherPayloadIsAConflictDeadLetterAndTheFirstResultStays(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 5);
      h.start(
          h.consumers(h.settings(points))
              .handler(
                  HandlerDefinition.of(
                      points,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        ConsumerHarness.credit(ctx.connection(), points, ctx.eventId(), event);
                        ctx.resultRef("amount=" + event.amount());
                      })));
      h.sendPaid("x1", "p1", 1, 10);
      awaitDb("first applied", WAIT, () -> h.credits(points, "x1") == 1);
      h.sendPaid("x1", "p1", 1, 999); // same eventId, different payload
      h.sendPaid("x1", "p1", 1, 999); // and that conflict redelivered
      await("conflicts seen", WAIT, () -> h.outcome(points, ConsumeOutcome.CONFLICT) == 2);
      List<DeadLetterRow> dl = h.deadLetters(points, "x1");
      assertThat(dl).hasSize(1); // keyed (group, eventId, hash): the redelivery adds nothing
      assertThat(dl.get(0).getKind()).isEqualTo(DeadLetterKind.CONFLICT);
      assertThat(dl.get(0).getReason()).isEqualTo(ParkReason.CONFLICT);
      assertThat(new String(dl.get(0).getPayload())).contains("999");
      assertThat(dl.get(0).getRequestHash())
          .isNotEqualTo(h.consumeLog(points, "x1").getRequestHash());
      h.assertAppliedOnce(points, "x1");
      assertThat(h.consumeLog(points, "x1").getResultRef()).isEqualTo("amount=10");
      assertThat(h.count("SELECT SUM(amount) FROM points_credit")).isEqualTo(10);
    }
  }
}
