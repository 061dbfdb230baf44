package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.H2QueryStatistics;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What the claim costs, counted by H2's own query statistics: a handler the failure detector saw
 * run clean is applied with one consume-log INSERT (written as SUCCESS) and no closing UPDATE; a
 * handler that records a result reference gets the UPDATE that stores it. The rows are the same
 * either way. (The statements are the same on every database; H2 is the one that counts them.)
 */
@DatabaseIndependent
class ClaimStatementsTest {
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;
  private static final int EVENTS = 5;

  @Test
  void aCleanHandlerIsClaimedWithOneInsertAndAResultReferenceAddsTheUpdate() throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(TestTransport.IN_MEMORY, TestDatabase.H2)) {
      String points = h.group("points", 3);
      String refs = h.group("refs", 3);
      h.start(
          h.consumers(h.settings(points, refs))
              .handler(
                  HandlerDefinition.of(
                      points, h.topic, "PaymentSucceeded", Paid.class, ConsumerHarness.credits()))
              .handler(
                  HandlerDefinition.of(
                      refs,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        ConsumerHarness.credit(ctx.connection(), refs, ctx.eventId(), event);
                        ctx.resultRef("ref-" + ctx.eventId());
                      })));
      H2QueryStatistics.start(h.db.dataSource());

      for (int i = 0; i < EVENTS; i++) {
        h.sendPaid("e-" + i, "p" + i, 1, 10 + i);
      }
      await(
          "every event applied by both groups",
          WAIT,
          () ->
              h.outcome(points, ConsumeOutcome.APPLIED) == EVENTS
                  && h.outcome(refs, ConsumeOutcome.APPLIED) == EVENTS);

      for (int i = 0; i < EVENTS; i++) {
        h.assertAppliedOnce(points, "e-" + i);
        h.assertAppliedOnce(refs, "e-" + i);
        assertThat(h.consumeLog(points, "e-" + i).getResultRef()).isNull();
        assertThat(h.consumeLog(points, "e-" + i).getAttempt()).isEqualTo(1);
        assertThat(h.consumeLog(refs, "e-" + i).getResultRef()).isEqualTo("ref-e-" + i);
      }
      // Both groups: 2 × EVENTS claims; only the group with result references updates its rows.
      assertThat(H2QueryStatistics.executions(h.db.dataSource(), "INSERT INTO TXMSG_CONSUME_LOG"))
          .isEqualTo(2 * EVENTS);
      assertThat(H2QueryStatistics.executions(h.db.dataSource(), "UPDATE TXMSG_CONSUME_LOG"))
          .isEqualTo(EVENTS);
    }
  }
}
