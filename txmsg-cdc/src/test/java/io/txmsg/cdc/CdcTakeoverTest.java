package io.txmsg.cdc;

import static io.txmsg.cdc.CdcFixture.LOG_DATABASES;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.RelayLeaseRow;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One relay per store: a second instance waits while the first holds the lease, and takes over when
 * the first is closed (at once: the lease is released) or killed (once the lease expired); the rows
 * committed around the switch are all delivered.
 */
@EmbeddedRocketMQTest
class CdcTakeoverTest {
  private final EmbeddedRocketMQ mq;

  CdcTakeoverTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aSecondInstanceTakesOverWhenTheFirstIsClosed(TestTransport transport, TestDatabase kind)
      throws Exception {
    takeOver(transport, kind, false);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aSecondInstanceTakesOverOnceTheLeaseOfAKilledFirstExpired(
      TestTransport transport, TestDatabase kind) throws Exception {
    takeOver(transport, kind, true);
  }

  private void takeOver(TestTransport transport, TestDatabase kind, boolean kill) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      RecordingListener firstEvents = new RecordingListener();
      RecordingListener secondEvents = new RecordingListener();
      CdcRelay first = f.started(f.relay(s -> s).listener(firstEvents).build());
      CdcRelay second = f.relay(s -> s).listener(secondEvents).build();
      f.closeLater(second);
      second.start();

      List<JournalRow> rows = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        rows.add(f.insert(topic, "a-" + i, 1, null));
      }
      f.awaitSent(rows, Duration.ofSeconds(60));
      assertThat(second.state()).isEqualTo(CdcRelay.State.WAITING_FOR_LEASE);
      assertThat(secondEvents.acquired).isEmpty();

      if (kill) {
        first.halt();
      } else {
        first.close();
      }
      // Committed while nobody relays: the second instance resumes from the first's offset.
      for (int i = 0; i < 5; i++) {
        rows.add(f.insert(topic, "b-" + i, 1, null));
      }
      CdcFixture.await(
          "the second instance relaying",
          () -> second.state() == CdcRelay.State.RELAYING,
          Duration.ofSeconds(60));
      for (int i = 0; i < 5; i++) {
        rows.add(f.insert(topic, "c-" + i, 1, null));
      }
      f.awaitDelivered(rows, Duration.ofSeconds(60));
      f.awaitSent(rows, Duration.ofSeconds(30));

      assertThat(secondEvents.acquired).containsExactly(first.generation() + 1);
      RelayLeaseRow lease = new CdcRelayStore(f.db.dataSource(), f.store).lease(f.storeId);
      assertThat(lease.getGeneration()).isEqualTo(second.generation());
      assertThat(lease.getOwnerToken()).isNotNull();
      assertThat(f.delivered.keySet())
          .containsExactlyInAnyOrderElementsOf(rows.stream().map(JournalRow::getEventId).toList());
    }
  }
}
