package io.txmsg.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * PostgreSQL: a slot has one reader. A former holder that stalled still holds the slot through its
 * walsender until the server drops it (wal_sender_timeout, 60 s by default); the instance that took
 * the expired lease over terminates that walsender and reads on at once.
 */
@EmbeddedRocketMQTest
class CdcSlotTakeoverTest {
  private final EmbeddedRocketMQ mq;

  CdcSlotTakeoverTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  static Stream<TestDatabase> postgresql() {
    return CdcFixture.logDatabases().stream().filter(d -> d == TestDatabase.POSTGRESQL);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("postgresql")
  void theNewHolderTerminatesTheWalsenderAStalledHolderStillHolds(TestDatabase kind)
      throws Exception {
    TestTransport transport =
        TestTransport.real().filter(t -> t.pairsWith(kind)).findFirst().orElseThrow();
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      CdcRelay first = f.started(f.relay(s -> s).build());
      JournalRow before = f.insert(topic, "o-1", 1, null);
      f.awaitSent(List.of(before), Duration.ofSeconds(60));
      first.halt();

      // The stalled holder's walsender: a replication connection that still reads the slot.
      Connection stale = replicationConnection(f);
      try {
        PGReplicationStream stream =
            stale
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName(f.slot)
                .withSlotOption("proto_version", 1)
                .withSlotOption("publication_names", f.publication)
                .start();
        assertThat(
                f.adminQuery(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = '" + f.slot + "'"))
            .isEqualTo("t");

        RecordingListener events = new RecordingListener();
        CdcRelay second =
            f.started(f.relay(s -> s.withTerminateStaleReader(true)).listener(events).build());
        JournalRow after = f.insert(topic, "o-2", 1, null);
        f.awaitDelivered(List.of(after), Duration.ofSeconds(60));
        f.awaitSent(List.of(after), Duration.ofSeconds(30));
        assertThat(events.acquired).containsExactly(first.generation() + 1);
        assertThat(second.generation()).isEqualTo(first.generation() + 1);
        assertThatThrownBy(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    stream.readPending();
                    Thread.sleep(50);
                  }
                })
            .as("the stalled holder's walsender was terminated")
            .isInstanceOf(java.sql.SQLException.class);
      } finally {
        try {
          stale.close();
        } catch (java.sql.SQLException terminated) {
          // its backend is gone: closing cannot say goodbye to it
        }
      }
    }
  }

  private static Connection replicationConnection(CdcFixture f) throws Exception {
    String url = f.db.jdbcUrl();
    url = url.contains("?") ? url.substring(0, url.indexOf('?')) : url;
    Properties p = new Properties();
    PGProperty.USER.set(p, "postgres");
    PGProperty.PASSWORD.set(p, "");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    return DriverManager.getConnection(url, p);
  }
}
