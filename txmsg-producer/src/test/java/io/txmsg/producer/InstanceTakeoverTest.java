package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.pays;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two instances of one store: one commits an event and stops before its END_TRANSACTION (it never
 * commits the half message) and then goes silent; the other, alive, republishes that event once the
 * silent instance's heartbeat is stale. The broker of this class checks half messages only after 10
 * minutes, so within the test no check-back can deliver: the delivery observed is the takeover's,
 * and the journal row and the live instance's meter say so. The live instance's own unconfirmed row
 * is never taken over while it beats.
 */
class InstanceTakeoverTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";

  private static EmbeddedRocketMQ noChecks;

  @BeforeAll
  static void startCluster() {
    noChecks =
        EmbeddedRocketMQ.builder()
            .transactionTimeout(Duration.ofMinutes(10))
            .transactionCheckInterval(Duration.ofSeconds(60))
            .start();
  }

  @AfterAll
  static void killCluster() {
    noChecks.close();
  }

  /** Never commits a half message: the END_TRANSACTION a hung instance never sends. */
  private static final ProducerInterceptor NO_END_TRANSACTION =
      new ProducerInterceptor() {
        @Override
        public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
          return false;
        }
      };

  @ParameterizedTest
  @MethodSource(DB)
  void aSilentInstancesCommittedEventIsRepublishedByTheLiveInstanceAndALiveOnesIsNot(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness live =
        new ProducerHarness(
            kind,
            transport.on(noChecks),
            s ->
                s.republishAfter(Duration.ofMinutes(10))
                    .reconcileInterval(Duration.ofMillis(500))
                    .heartbeatInterval(Duration.ofSeconds(1))
                    .instanceStaleAfter(Duration.ofSeconds(3)))) {
      String silentId = UUID.randomUUID().toString().substring(0, 12);
      String silentEvent = "evt-" + silentId;
      TestTransport.Open silentTransport = transport.on(noChecks);
      String silentInstance;
      try (TxProducer silent =
          TxProducer.builder()
              .dataSource(live.db.dataSource())
              .settings(live.settings.copy())
              .transport(silentTransport.transport())
              .interceptor(NO_END_TRANSACTION)
              .build()) {
        silent.template().execute(live.message(silentId, 7), pays(silentId, 7));
        JournalRow committed = live.journal(silentEvent);
        assertThat(committed.getStatus()).isEqualTo(JournalStatus.PENDING);
        silentInstance = committed.getInstanceId();
        assertThat(silentInstance).isNotNull();
      } finally {
        // Closed: it beats no more, as if hung or dead (its half message stays unresolved).
        silentTransport.close();
      }

      // The live instance's own row, END_TRANSACTION never sent either: it keeps beating.
      live.interceptor.delegate = NO_END_TRANSACTION;
      String ownId = UUID.randomUUID().toString().substring(0, 12);
      live.txmsg.template().execute(live.message(ownId, 8), pays(ownId, 8));
      String ownInstance = live.journal("evt-" + ownId).getInstanceId();
      assertThat(ownInstance).isNotNull().isNotEqualTo(silentInstance);

      assertThat(await(Duration.ofSeconds(60), () -> live.deliveryCount(silentEvent) >= 1))
          .as("the silent instance's committed event delivered by the live one")
          .isTrue();
      JournalRow taken = live.journal(silentEvent);
      assertThat(taken.getLastErrorCode()).isEqualTo("INSTANCE_STALE");
      assertThat(taken.getLastErrorMessage()).contains(silentInstance).contains(ownInstance);
      assertThat(taken.getInstanceId()).isEqualTo(ownInstance);
      assertThat(live.takenOver.get()).isEqualTo(1);
      assertThat(live.deliveries.get(silentEvent)).contains(taken.getAttemptId());

      // Another round finds nothing more to take: the live instance's own row stays its own.
      assertThat(live.txmsg.reconciler().runOnce().takenOver()).isZero();
      JournalRow own = live.journal("evt-" + ownId);
      assertThat(own.getInstanceId()).isEqualTo(ownInstance);
      assertThat(own.getLastErrorCode()).isNull();
      assertThat(own.getStatus()).isEqualTo(JournalStatus.PENDING);
      assertThat(live.deliveryCount("evt-" + ownId)).isZero();
      assertThat(live.takenOver.get()).isEqualTo(1);
      assertThat(await(DELIVERY, () -> live.journalStatus(silentEvent) == JournalStatus.SENT))
          .as("the republished event is confirmed")
          .isTrue();
      assertThat(List.of(live.paymentExists(silentId), live.paymentExists(ownId)))
          .containsOnly(true);
    }
  }
}
