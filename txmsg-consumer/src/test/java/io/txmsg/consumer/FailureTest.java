package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.REAL;
import static io.txmsg.consumer.ConsumerHarness.await;
import static io.txmsg.consumer.ConsumerHarness.awaitDb;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.Envelope;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.PermanentConsumeException;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetterStatus;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.sql.SQLTransientException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Classification, retries, parking and bad input. */
class FailureTest {
  private static final Duration WAIT = Duration.ofSeconds(40);

  @ParameterizedTest
  @MethodSource(REAL)
  void aTransientErrorTwiceThenSuccessIsAppliedOnceWithItsAttemptsRecorded(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 5);
      AtomicInteger calls = new AtomicInteger();
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
                        if (calls.incrementAndGet() <= 2) {
                          throw new SQLTransientException("lock wait timeout (injected)", "40001");
                        }
                      })));
      h.sendPaid("t1", "p1", 1, 7);
      awaitDb("applied", WAIT, () -> h.credits(g, "t1") == 1);
      ConsumerHarness.quiet(Duration.ofSeconds(1));
      h.assertAppliedOnce(g, "t1");
      assertThat(calls.get()).isEqualTo(3);
      assertThat(h.consumeLog(g, "t1").getAttempt()).isEqualTo(3);
      assertThat(h.outcome(g, ConsumeOutcome.RETRY)).isEqualTo(2);
      assertThat(h.deadLetters(g, "t1")).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aPermanentErrorParksAtOnceWithItsClassAndMessageAndLeavesNoBusinessWrite(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 5);
      AtomicInteger calls = new AtomicInteger();
      h.start(
          h.consumers(h.settings(g))
              .handler(
                  HandlerDefinition.of(
                      g,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        calls.incrementAndGet();
                        ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                        throw new PermanentConsumeException(
                            "account " + event.account() + " is closed");
                      })));
      h.sendPaid("pe1", "p1", 1, 7);
      awaitDb("parked", WAIT, () -> !h.deadLetters(g, "pe1").isEmpty());
      ConsumerHarness.quiet(Duration.ofSeconds(2));
      DeadLetterRow dl = h.deadLetters(g, "pe1").get(0);
      assertThat(dl.getReason()).isEqualTo(ParkReason.PERMANENT_ERROR);
      assertThat(dl.getErrorClass()).isEqualTo(PermanentConsumeException.class.getName());
      assertThat(dl.getErrorMessage()).isEqualTo("account acct-p1 is closed");
      assertThat(dl.getAttempt()).isEqualTo(1);
      assertThat(dl.getStatus()).isEqualTo(DeadLetterStatus.PARKED);
      assertThat(dl.getBusinessKey()).isEqualTo("order-p1");
      assertThat(dl.getTopic()).isEqualTo(h.topic);
      assertThat(dl.getBrokerMessageId()).isNotBlank();
      assertThat(dl.getHeaders()).contains("h_trace");
      assertThat(h.consumeLog(g, "pe1").getStatus()).isEqualTo(ConsumeStatus.PARKED);
      assertThat(h.credits(g, "pe1")).isZero();
      assertThat(calls.get()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void malformedEnvelopesAndUndecodablePayloadsAreParkedWhileTheRestFlows(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 5);
      h.start(
          h.consumers(h.settings(g))
              .handler(
                  HandlerDefinition.of(
                      g, h.topic, "PaymentSucceeded", Paid.class, ConsumerHarness.credits())));
      byte[] garbage = "{not json".getBytes(StandardCharsets.UTF_8);
      h.send(
          ConsumerHarness.envelope("bad-json", "PaymentSucceeded", "Payment", "p1", 1, garbage),
          garbage);
      byte[] body = ConsumerHarness.paid("a", 1);
      Map<String, String> noType =
          new HashMap<>(
              ConsumerHarness.envelope("no-type", "PaymentSucceeded", "Payment", "p2", 1, body));
      noType.remove(Envelope.EVENT_TYPE);
      h.send(noType, body);
      Map<String, String> tampered =
          ConsumerHarness.envelope("tampered", "PaymentSucceeded", "Payment", "p3", 1, body);
      h.send(tampered, ConsumerHarness.paid("a", 1_000_000));
      h.send(Map.of("foreign", "yes"), "hello".getBytes(StandardCharsets.UTF_8));
      h.sendPaid("good", "p4", 1, 4);

      awaitDb("good applied", WAIT, () -> h.credits(g, "good") == 1);
      await("four parked", WAIT, () -> h.outcome(g, ConsumeOutcome.PARKED) == 4);
      assertThat(reason(h, g, "bad-json")).isEqualTo(ParkReason.UNDECODABLE_PAYLOAD);
      assertThat(h.deadLetters(g, "bad-json").get(0).getErrorMessage())
          .contains(Paid.class.getName());
      assertThat(reason(h, g, "no-type")).isEqualTo(ParkReason.MALFORMED_ENVELOPE);
      assertThat(h.deadLetters(g, "no-type").get(0).getErrorMessage())
          .contains(Envelope.EVENT_TYPE);
      assertThat(reason(h, g, "tampered")).isEqualTo(ParkReason.PAYLOAD_HASH_MISMATCH);
      assertThat(
              h.count(
                  "SELECT COUNT(*) FROM txmsg_dead_letter WHERE event_id LIKE 'msg:%' AND reason = 'MALFORMED_ENVELOPE'"))
          .isEqualTo(1);
      assertThat(h.count("SELECT COUNT(*) FROM points_credit")).isEqualTo(1);
    }
  }

  private static ParkReason reason(ConsumerHarness h, String g, String eventId) throws Exception {
    List<DeadLetterRow> dl = h.deadLetters(g, eventId);
    assertThat(dl).as("dead letters of %s", eventId).hasSize(1);
    return dl.get(0).getReason();
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void anEventTypeWithoutHandlerIsRetriedThenParkedAndIgnoredTypesAreAcked(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 2);
      TxConsumerSettings s = h.settings();
      s.group(ConsumerGroupConfig.of(g).subscribe(h.topic).ignore("Heartbeat"));
      TxConsumers c =
          h.start(
              h.consumers(s)
                  .handler(
                      HandlerDefinition.of(
                          g, h.topic, "PaymentSucceeded", Paid.class, ConsumerHarness.credits())));
      assertThat(c.brokerMaxAttempts(g)).isEqualTo(3);
      byte[] body = ConsumerHarness.paid("a", 1);
      h.send(ConsumerHarness.envelope("r1", "PaymentRefunded", "Payment", "p1", 2, body), body);
      h.send(ConsumerHarness.envelope("hb1", "Heartbeat", "Node", "n1", 1, body), body);
      awaitDb("parked NO_HANDLER", WAIT, () -> !h.deadLetters(g, "r1").isEmpty());
      DeadLetterRow dl = h.deadLetters(g, "r1").get(0);
      assertThat(dl.getReason()).isEqualTo(ParkReason.NO_HANDLER);
      assertThat(dl.getAttempt()).isEqualTo(3);
      assertThat(h.outcome(g, ConsumeOutcome.RETRY)).isEqualTo(2);
      assertThat(h.outcome(g, ConsumeOutcome.IGNORED)).isEqualTo(1);
      assertThat(h.deadLetters(g, "hb1")).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource(REAL)
  void aDatabaseOutageNeverLeavesAnEventInTheBrokerDlqUnnoticedAndEverythingIsAppliedOnceAfter(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String g = h.group("points", 3); // 4 deliveries, about 2.5 s of retries
      Map<String, Integer> runs = new ConcurrentHashMap<>();
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
                            runs.merge(ctx.eventId(), 1, Integer::sum);
                            ConsumerHarness.credit(ctx.connection(), g, ctx.eventId(), event);
                          })));
      // Short outage: shorter than the retry policy, so redeliveries apply everything.
      h.dataSource.down(true);
      for (int i = 0; i < 5; i++) {
        h.sendPaid("s" + i, "p" + i, 1, i);
      }
      await("retries while down", WAIT, () -> h.outcome(g, ConsumeOutcome.RETRY) >= 5);
      h.dataSource.down(false);
      for (int i = 0; i < 5; i++) {
        String id = "s" + i;
        awaitDb(id + " applied", WAIT, () -> h.credits(g, id) == 1);
      }
      // Long outage: longer than every redelivery, so the broker moves the events to %DLQ%;
      // the drain parks them (BROKER_DLQ) once the database is back, and a replay applies them.
      h.dataSource.down(true);
      for (int i = 0; i < 3; i++) {
        h.sendPaid("l" + i, "q" + i, 1, i);
      }
      int attempts = c.brokerMaxAttempts(g);
      await(
          "every delivery of l0..l2 failed",
          Duration.ofSeconds(60),
          () ->
              h.outcomes("l0", ConsumeOutcome.RETRY) == attempts
                  && h.outcomes("l1", ConsumeOutcome.RETRY) == attempts
                  && h.outcomes("l2", ConsumeOutcome.RETRY) == attempts);
      ConsumerHarness.quiet(Duration.ofSeconds(2)); // the client forwards them to %DLQ%
      assertThat(h.credits(g, "l0")).isZero();
      h.dataSource.down(false);
      for (int i = 0; i < 3; i++) {
        String id = "l" + i;
        awaitDb(
            id + " parked from %DLQ%",
            Duration.ofSeconds(60),
            () -> !h.deadLetters(g, id).isEmpty());
        assertThat(h.deadLetters(g, id).get(0).getReason()).isEqualTo(ParkReason.BROKER_DLQ);
        assertThat(c.replay(g, id, "replay-1").status()).isEqualTo(ReplayResult.Status.REPLAYED);
      }
      ConsumerHarness.quiet(Duration.ofSeconds(1));
      for (String id : List.of("s0", "s1", "s2", "s3", "s4", "l0", "l1", "l2")) {
        h.assertAppliedOnce(g, id);
        assertThat(runs).containsEntry(id, 1);
      }
    }
  }
}
