package io.txmsg.cdc;

import static io.txmsg.cdc.CdcFixture.LOG_DATABASES;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The relay on real databases (PostgreSQL, MariaDB) and the real embedded broker, both transports:
 * delivery in commit order with SENT recorded, and a restart that resumes from the stored offset.
 */
@EmbeddedRocketMQTest
class CdcRelayTest {
  private final EmbeddedRocketMQ mq;

  CdcRelayTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void deliversEachCdcRowOnceInCommitOrderByteIdenticalAndRecordsItSent(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.FIFO);
      f.consume(topic, true);
      f.started(f.relay(s -> s).build());

      List<JournalRow> rows = new ArrayList<>();
      List<JournalRow> notMine = new ArrayList<>();
      for (int v = 1; v <= 20; v++) {
        rows.add(f.insert(topic, "o-1", v, "Order:o-1"));
        if (v % 5 == 0) {
          // Rows the relay must leave alone: another mode's, another store's.
          notMine.add(f.insert(topic, "o-2", v, "Order:o-2", PublishMode.SEND, f.storeId));
          notMine.add(f.insert(topic, "o-3", v, "Order:o-3", PublishMode.CDC, "other-store"));
        }
      }
      f.awaitDelivered(rows, Duration.ofSeconds(60));
      f.awaitSent(rows, Duration.ofSeconds(30));

      List<String> ids = rows.stream().map(JournalRow::getEventId).toList();
      assertThat(f.deliveryOrder)
          .as("commit order (one message group)")
          .containsExactlyElementsOf(ids);
      for (JournalRow inserted : rows) {
        JournalRow stored = f.row(inserted.getEventId());
        List<InboundMessage> got = f.delivered.get(inserted.getEventId());
        assertThat(got).hasSize(1);
        // Byte-identical to what the reconciler builds from the stored row.
        OutboundMessage expected = EnvelopeCodec.encode(stored);
        assertThat(got.get(0).body()).isEqualTo(expected.body());
        assertThat(got.get(0).properties()).containsAllEntriesOf(expected.properties());
        assertThat(stored.getStatus()).isEqualTo(JournalStatus.SENT);
        assertThat(stored.getBrokerMessageId()).isEqualTo(got.get(0).messageId());
        assertThat(stored.getSentAt()).isNotNull();
      }
      for (JournalRow other : notMine) {
        assertThat(f.row(other.getEventId()).getStatus()).isEqualTo(JournalStatus.PENDING);
        assertThat(f.delivered).doesNotContainKey(other.getEventId());
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aRestartResumesFromTheStoredOffset(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      CdcRelay first = f.started(f.relay(s -> s).build());
      List<JournalRow> before = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        before.add(f.insert(topic, "o-" + i, 1, null));
      }
      f.awaitSent(before, Duration.ofSeconds(60));
      first.close();
      String offsets = f.adminQuery("SELECT offsets FROM txmsg_cdc_offset");
      assertThat(offsets).as("stored offsets").isNotNull();

      // Committed while no relay runs: a restart at the current position would never see them.
      List<JournalRow> meanwhile = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        meanwhile.add(f.insert(topic, "p-" + i, 1, null));
      }
      CdcRelay second = f.started(f.relay(s -> s).build());
      f.awaitDelivered(meanwhile, Duration.ofSeconds(60));
      f.awaitSent(meanwhile, Duration.ofSeconds(30));
      assertThat(second.generation()).isEqualTo(first.generation() + 1);
      for (JournalRow r : before) {
        assertThat(f.delivered.get(r.getEventId()))
            .as("sent before the clean stop, not again")
            .hasSize(1);
      }
      assertThat(f.delivered.keySet())
          .containsAll(meanwhile.stream().map(JournalRow::getEventId).toList());
      assertThat(Map.copyOf(f.delivered)).hasSize(10);
    }
  }

  /**
   * An additive change of the journal (what a txmsg schema upgrade does) while the relay streams:
   * rows after it are relayed, and so they are after a restart (MariaDB: from the schema history
   * stored in the txmsg database, which now holds the change).
   */
  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aJournalSchemaChangeWhileRelayingIsFollowedAlsoAfterARestart(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      CdcRelay first = f.started(f.relay(s -> s).build());
      List<JournalRow> rows = new ArrayList<>();
      rows.add(f.insert(topic, "o-1", 1, null));
      f.awaitSent(rows, Duration.ofSeconds(60));

      f.admin("ALTER TABLE txmsg_journal ADD COLUMN cdc_test_note VARCHAR(32)");
      rows.add(f.insert(topic, "o-2", 1, null));
      f.awaitSent(rows, Duration.ofSeconds(60));
      first.close();

      rows.add(f.insert(topic, "o-3", 1, null));
      f.started(f.relay(s -> s).build());
      rows.add(f.insert(topic, "o-4", 1, null));
      f.awaitDelivered(rows, Duration.ofSeconds(60));
      f.awaitSent(rows, Duration.ofSeconds(30));
      for (JournalRow r : rows) {
        assertThat(f.delivered.get(r.getEventId())).hasSize(1);
        assertThat(f.delivered.get(r.getEventId()).get(0).body())
            .isEqualTo(EnvelopeCodec.encode(f.row(r.getEventId())).body());
      }
    }
  }
}
