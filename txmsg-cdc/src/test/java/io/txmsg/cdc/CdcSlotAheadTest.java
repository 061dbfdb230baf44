package io.txmsg.cdc;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PostgreSQL: the slot's confirmed and restart positions move past the relay's stored offset while
 * the journal is quiet (the driver confirms the server's keepalives once every received change is
 * confirmed, so that other tables' WAL is not kept on disk). A relay started later resumes at the
 * slot's position (nothing of the journal lies between the two) instead of refusing to start
 * because its stored offset is "no longer available on the server".
 */
@EmbeddedRocketMQTest
class CdcSlotAheadTest {
  private static final Pattern LSN = Pattern.compile("\\\\?\"lsn_proc\\\\?\"\\s*:\\s*(\\d+)");

  private final EmbeddedRocketMQ mq;

  CdcSlotAheadTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  static Stream<Arguments> transportsOnPostgresql() {
    return CdcFixture.transportsAndLogDatabases()
        .filter(a -> a.get()[1] == TestDatabase.POSTGRESQL);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("transportsOnPostgresql")
  void aRelayResumesWhenTheSlotConfirmedMoreThanItsStoredOffset(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      RecordingListener firstEvents = new RecordingListener();
      // Heartbeats would move the stored offset along (the fixture's are 300 ms): the default's 10
      // s
      // and more leave it behind the slot, as in production between two heartbeats.
      CdcRelay first =
          f.started(
              f.relay(s -> s.withHeartbeatInterval(Duration.ofSeconds(20)))
                  .listener(firstEvents)
                  .build());
      JournalRow before = f.insert(topic, "o-1", 1, null);
      f.awaitSent(List.of(before), Duration.ofSeconds(60));
      String table = "wal_noise_" + f.suffix;
      f.admin("CREATE TABLE " + table + " (id SERIAL PRIMARY KEY, v TEXT)");
      // Traffic the publication does not carry, until the slot confirmed past the stored offset.
      CdcFixture.await(
          "slot " + f.slot + " restart position past the relay's stored offset",
          () -> {
            try {
              f.admin(
                  "INSERT INTO "
                      + table
                      + " (v) SELECT md5(g::text) FROM generate_series(1,200) g");
              long slot = slotRestart(f);
              long stored = storedLsn(f);
              return stored > 0 && slot > stored;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          },
          Duration.ofSeconds(90));
      first.halt(); // a crash: the offsets stay as last stored
      f.awaitSlotInactive();
      assertThat(slotRestart(f))
          .as("the precondition held at the crash")
          .isGreaterThan(storedLsn(f));

      RecordingListener events = new RecordingListener();
      CdcRelay second = f.started(f.relay(s -> s).listener(events).build());
      JournalRow after = f.insert(topic, "o-2", 1, null);
      f.awaitDelivered(List.of(after), Duration.ofSeconds(60));
      f.awaitSent(List.of(after), Duration.ofSeconds(30));
      assertThat(second.state()).isEqualTo(CdcRelay.State.RELAYING);
      assertThat(events.cannotResume).as("nothing of the journal was skipped").isEmpty();
      assertThat(f.row(before.getEventId()).getStatus()).isEqualTo(JournalStatus.SENT);
    }
  }

  private static long slotRestart(CdcFixture f) throws Exception {
    return Long.parseLong(
        f.adminQuery(
            "SELECT (restart_lsn - '0/0'::pg_lsn)::bigint FROM pg_replication_slots"
                + " WHERE slot_name = '"
                + f.slot
                + "'"));
  }

  /**
   * The last completely processed position of the offsets the relay stored (what the connector
   * checks against the slot at start; a heartbeat stores it), 0 when none.
   */
  private static long storedLsn(CdcFixture f) throws Exception {
    String offsets =
        f.adminQuery("SELECT offsets FROM txmsg_cdc_offset WHERE store_id = '" + f.storeId + "'");
    if (offsets == null) {
      return 0;
    }
    Matcher m = LSN.matcher(offsets);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
