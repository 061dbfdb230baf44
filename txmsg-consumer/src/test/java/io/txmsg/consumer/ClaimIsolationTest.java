package io.txmsg.consumer;

import static io.txmsg.consumer.ConsumerHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerHarness.Paid;
import io.txmsg.testkit.db.FaultInjectingDataSource;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The claim transaction runs at READ COMMITTED without an isolation round trip per event when the
 * pool's connections already start there (H2, PostgreSQL), and sets and restores it per transaction
 * where they do not (MariaDB's REPEATABLE READ). Counted on the JDBC calls the consumers make
 * through the pool, with each database's real driver.
 */
class ClaimIsolationTest {
  private static final Duration WAIT = ConsumerHarness.DELIVERY_WAIT;
  private static final int EVENTS = 5;

  @ParameterizedTest
  @MethodSource(ConsumerHarness.DB)
  void theClaimTransactionReadsOrSetsTheIsolationOnlyWhenThePoolIsNotAtReadCommitted(
      TestDatabase kind) throws Exception {
    try (ConsumerHarness h = new ConsumerHarness(TestTransport.IN_MEMORY, kind)) {
      AtomicInteger reads = new AtomicInteger();
      AtomicInteger sets = new AtomicInteger();
      AtomicInteger levelInHandler = new AtomicInteger(-1);
      String points = h.group("points", 3);
      h.start(
          h.consumers(h.settings(points))
              .dataSource(counting(h.dataSource, reads, sets))
              .handler(
                  HandlerDefinition.of(
                      points,
                      h.topic,
                      "PaymentSucceeded",
                      Paid.class,
                      (event, ctx) -> {
                        levelInHandler.set(ctx.connection().getTransactionIsolation());
                        ConsumerHarness.credit(ctx.connection(), points, ctx.eventId(), event);
                      })));
      int readsAtStart = reads.get();
      int setsAtStart = sets.get();
      for (int i = 0; i < EVENTS; i++) {
        h.sendPaid("e-" + i, "p" + i, 1, 10 + i);
      }
      await("all applied", WAIT, () -> h.outcome(points, ConsumeOutcome.APPLIED) == EVENTS);
      for (int i = 0; i < EVENTS; i++) {
        h.assertAppliedOnce(points, "e-" + i);
      }

      // What the handler saw is always READ COMMITTED (its own read is not counted: it goes
      // through the observed connection the handler gets, a view of the counted one, and happens
      // once per event on every database; subtract it).
      assertThat(levelInHandler.get()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
      int claimReads = reads.get() - readsAtStart - EVENTS;
      int claimSets = sets.get() - setsAtStart;
      if (kind == TestDatabase.MARIADB) {
        // REPEATABLE READ by default: read, set READ COMMITTED, restore, per claim transaction.
        assertThat(claimReads).isGreaterThanOrEqualTo(EVENTS);
        assertThat(claimSets).isGreaterThanOrEqualTo(2 * EVENTS);
      } else {
        assertThat(claimReads).as("isolation reads per claim").isZero();
        assertThat(claimSets).as("isolation changes per claim").isZero();
      }
    }
  }

  /** The pool, counting getTransactionIsolation / setTransactionIsolation on its connections. */
  private static DataSource counting(DataSource pool, AtomicInteger reads, AtomicInteger sets) {
    return new FaultInjectingDataSource(
        pool,
        (real, m, args, call) -> {
          if (m.getName().equals("getTransactionIsolation")) {
            reads.incrementAndGet();
          } else if (m.getName().equals("setTransactionIsolation")) {
            sets.incrementAndGet();
          }
          return call.proceed();
        });
  }
}
