package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.insertPayment;
import static io.txmsg.producer.ProducerHarness.pays;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.TxResult;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.H2QueryStatistics;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The pre-commit self-check (the last statement of the local transaction) costs a round trip only
 * where the failure detector cannot vouch for the action: counted by H2's own query statistics. An
 * action whose statements all went through the observed connection and succeeded commits without
 * it; one that caught a failed statement it declared ignorable gets it (on PostgreSQL that
 * statement is what finds the aborted transaction: TxMessageTemplateTest).
 */
@DatabaseIndependent
class SelfCheckStatementsTest {
  private static final int EXECUTES = 4;

  @Test
  void halfMessageModeSkipsTheAttemptReReadWhenTheActionRanClean() throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(TestDatabase.H2, TestTransport.IN_MEMORY.open(), s -> {})) {
      // The whole statement: the in-memory broker checks back a half message still open after
      // 200 ms, and a check-back reads the same row without FOR UPDATE.
      assertSelfCheckOnlyWhenNeeded(
          h, "SELECT STATE FROM TXMSG_ATTEMPT WHERE ATTEMPT_ID = ? FOR UPDATE");
    }
  }

  @Test
  void outboxModeSkipsTheJournalReReadWhenTheActionRanClean() throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            TestDatabase.H2,
            TestTransport.IN_MEMORY.open(),
            TopicType.NORMAL,
            t -> t,
            s -> s.deliveryMode(DeliveryMode.OUTBOX).publishAfter(Duration.ofSeconds(1)))) {
      assertSelfCheckOnlyWhenNeeded(
          h, "SELECT STATUS FROM TXMSG_JOURNAL WHERE EVENT_ID = ? AND ATTEMPT_ID = ? FOR UPDATE");
    }
  }

  private static void assertSelfCheckOnlyWhenNeeded(ProducerHarness h, String selfCheck)
      throws Exception {
    H2QueryStatistics.start(h.db.dataSource());
    for (int i = 0; i < EXECUTES; i++) {
      String id = "clean-" + i + "-" + h.topic;
      TxResult<Object> r = h.txmsg.template().execute(h.message(id, i), pays(id, i));
      assertThat(r.outcome()).isEqualTo(TxResult.Outcome.COMMITTED);
      assertThat(h.paymentExists(id)).isTrue();
    }
    assertThat(H2QueryStatistics.executions(h.db.dataSource(), selfCheck))
        .as("self-checks after clean actions")
        .isZero();

    // A failed statement the action declared ignorable: H2 kept the transaction (statement-level
    // rollback), but only the self-check can say so, and it runs.
    String id = "ignored-" + h.topic;
    TxResult<Object> r =
        h.txmsg
            .template()
            .execute(
                h.message(id, 1),
                ctx -> {
                  ctx.ignoreFailedStatements("23");
                  insertPayment(ctx.connection(), id, 1);
                  try {
                    insertPayment(ctx.connection(), id, 1);
                  } catch (SQLException duplicate) {
                    // declared above: the action handles it
                  }
                  return null;
                });
    assertThat(r.outcome()).isEqualTo(TxResult.Outcome.COMMITTED);
    assertThat(H2QueryStatistics.executions(h.db.dataSource(), selfCheck))
        .as("self-check after an ignored failure")
        .isEqualTo(1);
  }
}
