package io.txmsg.store.journal;

import static io.txmsg.store.journal.JournalContractTest.find;
import static io.txmsg.store.journal.JournalContractTest.inTx;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Heartbeats and the hung-instance takeover on every enabled database (H2 by default; MariaDB and
 * PostgreSQL with -Pdatabases): which rows a takeover makes due, that it moves them to the live
 * instance (taken once), and that a beating instance is never taken over.
 */
class InstanceHeartbeatsTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  /** Far in the future: a row awaiting confirmation, not due before republishAfter. */
  private static final long AWAITING = 600_000;

  private static TxmsgStore install(DatabaseFixture db) {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    return TxmsgStore.detect(db.dataSource(), "txmsg_");
  }

  private static JournalRow row(String eventId, String instance, PublishMode mode) {
    JournalRow r = StoreFixtures.journalRow(eventId);
    r.setInstanceId(instance);
    r.setPublishMode(mode);
    return r;
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aStaleInstancesCommittedHalfMessageRowsBecomeDueAndMoveToTheLiveInstanceOnce(
      TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      InstanceHeartbeats live = new InstanceHeartbeats(db.dataSource(), store, "s");
      live.beat("hung", "h1");
      live.beat("live", "h2");
      live.beat("live2", "h3");
      JournalRow otherStore = row("billing-row", "hung", PublishMode.HALF_MESSAGE);
      otherStore.setStoreId("billing");
      inTx(
          db.dataSource(),
          store,
          s -> {
            JournalMapper m = s.getMapper(JournalMapper.class);
            m.insert(row("half", "hung", PublishMode.HALF_MESSAGE), AWAITING);
            m.insert(row("send", "hung", PublishMode.SEND), AWAITING);
            m.insert(row("cdc", "hung", PublishMode.CDC), AWAITING);
            m.insert(row("legacy", null, PublishMode.HALF_MESSAGE), AWAITING);
            m.insert(row("mine", "live", PublishMode.HALF_MESSAGE), AWAITING);
            m.insert(row("sent", "hung", PublishMode.HALF_MESSAGE), AWAITING);
            m.markSent(List.of("sent"));
            return m.insert(otherStore, AWAITING);
          });
      assertThat(find(db, store, m -> m.findById("half")).getInstanceId()).isEqualTo("hung");

      // Every instance beat within the last minute: nobody is stale.
      assertThat(live.takeOver("live", 60_000)).isEmpty();

      // The live instances keep beating; "hung" does not. With a 1 ms limit it is stale at once.
      Thread.sleep(50);
      live.beat("live", "h2");
      live.beat("live2", "h3");
      List<InstanceHeartbeats.Takeover> taken = live.takeOver("live", 1);

      // Only its PENDING HALF_MESSAGE row of this store: SEND rows are due after publishAfter
      // anyway, CDC rows are the relay's, rows without an instance predate V5, a SENT row is done.
      assertThat(taken).extracting(InstanceHeartbeats.Takeover::staleInstance).contains("hung");
      assertThat(taken.stream().mapToInt(InstanceHeartbeats.Takeover::rows).sum()).isEqualTo(1);
      JournalRow half = find(db, store, m -> m.findById("half"));
      assertThat(half.getInstanceId()).isEqualTo("live");
      assertThat(half.getLastErrorCode()).isEqualTo("INSTANCE_STALE");
      assertThat(half.getLastErrorMessage()).contains("hung").contains("live");
      assertThat(half.getStatus()).isEqualTo(JournalStatus.PENDING);
      List<String> due =
          JournalContractTest.dueRows(
              db, store, m -> m.selectDue("s", 10).stream().map(DueRow::getEventId).toList());
      assertThat(due).containsExactly("half");
      for (String untouched : List.of("send", "cdc", "legacy", "mine", "sent")) {
        assertThat(find(db, store, m -> m.findById(untouched)).getLastErrorCode())
            .as(untouched)
            .isNull();
      }
      assertThat(find(db, store, m -> m.findById("billing-row")).getInstanceId()).isEqualTo("hung");

      // A later pass finds nothing left of "hung" to take: its row moved to "live".
      assertThat(live.takeOver("live", 1))
          .filteredOn(t -> t.staleInstance().equals("hung"))
          .extracting(InstanceHeartbeats.Takeover::rows)
          .containsOnly(0);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anInstanceThatBeatsAgainIsNotTakenOverAndItsBeatAgeIsTheDatabasesClock(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      InstanceHeartbeats h = new InstanceHeartbeats(db.dataSource(), store, "s");
      h.beat("paused", null);
      h.beat("live", null);
      inTx(
          db.dataSource(),
          store,
          s ->
              s.getMapper(JournalMapper.class)
                  .insert(row("p1", "paused", PublishMode.HALF_MESSAGE), AWAITING));
      // "paused" resumed and beat: within a minute's limit it is live, its row stays its own.
      h.beat("paused", null);
      assertThat(h.takeOver("live", 60_000)).isEmpty();
      assertThat(find(db, store, m -> m.findById("p1")).getInstanceId()).isEqualTo("paused");
      assertThat(h.beatAgeMillis("paused")).isNotNull().isGreaterThanOrEqualTo(0L);
      assertThat(h.beatAgeMillis("nobody")).isNull();
      // A forgotten instance registers again on its next beat.
      Thread.sleep(20);
      assertThat(h.forgetOlderThan(1)).isEqualTo(2);
      h.beat("paused", null);
      assertThat(h.beatAgeMillis("paused")).isNotNull();
    }
  }
}
