package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.pays;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link DeliveryConfirmation#BROKER_ACK} on the remoting transport and the real broker: the commit
 * is synchronous, the row becomes SENT from the broker's SUCCESS (no confirm group runs), and a
 * commit that never happened is finished by the check-back, its row SENT by the reconciler after
 * republishAfter with the one duplicate the confirmation's Javadoc states.
 */
class BrokerAckTest {
  private static final String REMOTING =
      "io.txmsg.testkit.transport.TestTransport#remotingWithDatabases";

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(REMOTING)
  void theRowIsSentFromTheBrokersAnswerAndTheEventDeliveredOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind, transport.open(), s -> s.confirmation(DeliveryConfirmation.BROKER_ACK))) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String id = UUID.randomUUID().toString().substring(0, 8);
        h.txmsg.template().execute(h.message(id, i), pays(id, i));
        ids.add("evt-" + id);
      }
      for (String eventId : ids) {
        assertThat(await(DELIVERY, () -> h.journalStatus(eventId) == JournalStatus.SENT))
            .as(eventId + " SENT")
            .isTrue();
        assertThat(h.journal(eventId).getBrokerMessageId()).isNotBlank();
        assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1))
            .as(eventId + " delivered")
            .isTrue();
      }
      Thread.sleep(1000);
      for (String eventId : ids) {
        assertThat(h.deliveryCount(eventId)).as(eventId).isEqualTo(1);
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(REMOTING)
  void aCommitThatNeverHappenedIsFinishedByTheCheckBackThenSentByTheReconcilerWithOneDuplicate(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.open(),
            s ->
                s.confirmation(DeliveryConfirmation.BROKER_ACK)
                    .republishAfter(Duration.ofSeconds(8)))) {
      String id = UUID.randomUUID().toString().substring(0, 8);
      String eventId = "evt-" + id;
      h.interceptor.delegate =
          new ProducerInterceptor() {
            @Override
            public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
              return false; // as if the process died between its local commit and the commit
            }
          };
      h.txmsg.template().execute(h.message(id, 1), pays(id, 1));
      h.interceptor.delegate = new ProducerInterceptor() {};
      assertThat(h.journalStatus(eventId)).isEqualTo(JournalStatus.PENDING);
      // The check-back commits the half message (its answer is oneway: nothing records SENT)...
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1)).isTrue();
      assertThat(h.checkbacksAnswered("COMMIT")).isPositive();
      // ...and after republishAfter the reconciler sends it again and records SENT from the
      // broker's answer to its own synchronous commit.
      assertThat(
              await(Duration.ofSeconds(60), () -> h.journalStatus(eventId) == JournalStatus.SENT))
          .isTrue();
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 2)).isTrue();
      Thread.sleep(2000);
      assertThat(h.deliveryCount(eventId)).as("the check-back's and the republish's").isEqualTo(2);
    }
  }

  /** A publish joined to the caller's Spring transaction is SENT the same way at its commit. */
  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(REMOTING)
  void aJoinedPublishIsSentFromTheBrokersAnswerAtTheCallersCommit(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind, transport.open(), s -> s.confirmation(DeliveryConfirmation.BROKER_ACK))) {
      String id = UUID.randomUUID().toString().substring(0, 8);
      new TransactionTemplate(new DataSourceTransactionManager(h.db.dataSource()))
          .executeWithoutResult(
              st -> {
                new JdbcTemplate(h.db.dataSource())
                    .update("INSERT INTO payment (id, amount) VALUES (?, ?)", id, 10);
                h.txmsg.template().publish(h.message(id, 10));
              });
      String eventId = "evt-" + id;
      assertThat(await(DELIVERY, () -> h.journalStatus(eventId) == JournalStatus.SENT)).isTrue();
      assertThat(await(DELIVERY, () -> h.deliveryCount(eventId) >= 1)).isTrue();
      Thread.sleep(1000);
      assertThat(h.deliveryCount(eventId)).isEqualTo(1);
    }
  }
}
