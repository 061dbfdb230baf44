package io.txmsg.cdc;

import static io.txmsg.cdc.CdcFixture.LOG_DATABASES;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A relay whose stored position is gone (PostgreSQL: its slot was dropped; MariaDB: the binlog file
 * of its offset was purged) says so through its listener and restarts at the current end of the
 * log: it relays what is committed from then on, and the rows committed in the gap stay PENDING for
 * the reconciler's per-row fallback.
 */
@EmbeddedRocketMQTest
class CdcResumeTest {
  private final EmbeddedRocketMQ mq;

  CdcResumeTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aLostPositionIsReportedAndTheRelayRestartsAtTheCurrentEnd(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      CdcRelay first = f.started(f.relay(s -> s).build());
      JournalRow before = f.insert(topic, "o-1", 1, null);
      f.awaitSent(List.of(before), Duration.ofSeconds(60));
      first.close();

      JournalRow inTheGap = f.insert(topic, "o-2", 1, null);
      String expected;
      if (kind == TestDatabase.POSTGRESQL) {
        // The closed relay's walsender may outlive its connection for a moment.
        f.awaitSlotInactive();
        f.admin("SELECT pg_drop_replication_slot('" + f.slot + "')");
        expected = "replication slot " + f.slot + " does not exist";
      } else {
        // The offset's binlog file (which holds the gap's insert) is purged from the server.
        // A file a replica connection still reads is not purged: the closed relay's dump thread
        // may linger on the server for a moment.
        f.admin("FLUSH BINARY LOGS");
        String current = f.adminQuery("SHOW MASTER STATUS");
        CdcFixture.await(
            "binlogs before " + current + " purged",
            () -> {
              try {
                f.admin("PURGE BINARY LOGS TO '" + current + "'");
                return current.equals(f.adminQuery("SHOW BINARY LOGS"));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            Duration.ofSeconds(30));
        expected = "of the stored offset was purged";
      }

      RecordingListener events = new RecordingListener();
      f.started(f.relay(s -> s).listener(events).build());
      assertThat(events.cannotResume).singleElement().asString().contains(expected);
      JournalRow after = f.insert(topic, "o-3", 1, null);
      f.awaitDelivered(List.of(after), Duration.ofSeconds(60));
      f.awaitSent(List.of(after), Duration.ofSeconds(30));

      assertThat(f.row(inTheGap.getEventId()).getStatus())
          .as("the gap's row is the reconciler's fallback's")
          .isEqualTo(JournalStatus.PENDING);
      assertThat(f.delivered).doesNotContainKey(inTheGap.getEventId());
    }
  }
}
