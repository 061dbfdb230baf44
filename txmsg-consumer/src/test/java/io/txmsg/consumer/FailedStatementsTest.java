package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A handler that catches a failed statement is not applied on any database (rolled back, and the
 * swallowed failure classified as if thrown: here a permanent one, so parked); one that rolled back
 * to a savepoint is applied.
 */
class FailedStatementsTest {
  private static final String TRANSPORTS = "io.txmsg.testkit.transport.TestTransport#withDatabases";
  // A remoting redelivery likely follows the broker's delay levels (10 s, then 30 s), so a park
  // after the third delivery can take over 30 s (a CI run on MariaDB/PostgreSQL timed out at 30 s).
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;

  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void aSwallowedFailedStatementIsNeverAppliedAndASavepointRollbackIs(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 1); // two delivery attempts, then parked
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
                        boolean recover = ctx.eventId().startsWith("recover");
                        Savepoint sp = recover ? ctx.connection().setSavepoint() : null;
                        try (var s = ctx.connection().createStatement()) {
                          s.execute("SELECT * FROM no_such_table");
                        } catch (SQLException swallowed) {
                          if (recover) {
                            ctx.connection().rollback(sp);
                          }
                        }
                      })));
      h.sendPaid("swallow-1", "p1", 1, 10);
      h.sendPaid("recover-1", "p2", 1, 20);

      await(
          "recover-1 applied and swallow-1 parked",
          WAIT,
          () ->
              h.outcomes("recover-1", ConsumeOutcome.APPLIED) == 1
                  && h.outcomes("swallow-1", ConsumeOutcome.PARKED) == 1);
      h.assertAppliedOnce(points, "recover-1");
      assertThat(h.credits(points, "swallow-1")).as("never applied").isZero();
      // The swallowed failure is the cause, classified like a thrown one (42: permanent).
      assertThat(h.deadLetters(points, "swallow-1"))
          .singleElement()
          .satisfies(d -> assertThat(d.getReason()).isEqualTo(ParkReason.PERMANENT_ERROR));
    }
  }

  /**
   * A failure the handler declared ignorable (duplicate key, class 23): H2 and MariaDB roll back
   * the statement only, so the event is applied; PostgreSQL has aborted the whole transaction, and
   * the claim row's closing UPDATE, the consumer's self-check, fails there, so the event is never
   * reported applied with its writes lost (it is retried, then parked).
   */
  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void anIgnoredFailureIsAppliedWhereTheDatabaseKeptTheTransactionAndNeverWhereItAborted(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 1); // two delivery attempts, then parked
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
                        ctx.ignoreFailedStatements("23");
                        String insert =
                            "INSERT INTO projection (aggregate_id, version, applied)"
                                + " VALUES ('"
                                + ctx.eventId()
                                + "', 1, 'x')";
                        try (var s = ctx.connection().createStatement()) {
                          s.execute(insert);
                          s.execute(insert); // duplicate key, caught and declared ignorable
                        } catch (SQLException duplicate) {
                          // what "catch duplicate key and continue" looks like
                        }
                      })));
      h.sendPaid("ignored-1", "p1", 1, 10);

      if (kind == TestDatabase.POSTGRESQL) {
        await(
            "ignored-1 parked on PostgreSQL",
            WAIT,
            () -> h.outcomes("ignored-1", ConsumeOutcome.PARKED) == 1);
        assertThat(h.outcomes("ignored-1", ConsumeOutcome.APPLIED)).isZero();
        assertThat(h.credits(points, "ignored-1")).as("never applied").isZero();
      } else {
        await(
            "ignored-1 applied", WAIT, () -> h.outcomes("ignored-1", ConsumeOutcome.APPLIED) == 1);
        h.assertAppliedOnce(points, "ignored-1");
      }
    }
  }

  /**
   * A handler that ends the claim transaction itself (a swallowed ROLLBACK raises nothing) has
   * discarded the claim row: the closing self-check finds no row, so the event is never reported
   * applied; its writes are rolled back and it is retried, then parked.
   */
  @ParameterizedTest
  @MethodSource(TRANSPORTS)
  void aHandlerThatRollsBackTheClaimTransactionIsNeverReportedApplied(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(transport, kind)) {
      String points = h.group("points", 1); // two delivery attempts, then parked
      h.start(
          h.consumers(h.settings(points))
              .handler(
                  HandlerDefinition.of(
                      points,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        try (var s = ctx.connection().createStatement()) {
                          s.execute("ROLLBACK");
                        }
                        ConsumerHarness.credit(ctx.connection(), points, ctx.eventId(), event);
                      })));
      h.sendPaid("rolled-back-1", "p1", 1, 10);

      await(
          () -> "rolled-back-1 parked; outcomes " + h.outcomesOf("rolled-back-1"),
          WAIT,
          () -> h.outcomes("rolled-back-1", ConsumeOutcome.PARKED) == 1);
      assertThat(h.outcomes("rolled-back-1", ConsumeOutcome.APPLIED)).isZero();
      assertThat(h.credits(points, "rolled-back-1")).as("never applied").isZero();
    }
  }
}
