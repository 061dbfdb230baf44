package io.txmsg.store.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CDC relay's state on every enabled database: one lease holder per store, a generation that
 * fences every write of an instance that lost the lease (offsets, schema history, SENT, DEAD), and
 * the journal updates restricted to the store's CDC rows.
 */
class CdcRelayStoreTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final Duration LONG = Duration.ofMinutes(5);

  private static CdcRelayStore install(DatabaseFixture db) {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    return new CdcRelayStore(db.dataSource(), TxmsgStore.detect(db.dataSource(), "txmsg_"));
  }

  @ParameterizedTest
  @MethodSource(DB)
  void oneInstanceHoldsTheLeaseAndEachAcquisitionFencesThePreviousHoldersWrites(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      CdcRelayStore store = install(db);
      RelayFence a = store.tryAcquire("s1", "owner-a", LONG, "host-a").orElseThrow();
      assertThat(a.generation()).isEqualTo(1);
      assertThat(store.tryAcquire("s1", "owner-b", LONG, "host-b")).isEmpty();
      // Another store has a lease of its own.
      assertThat(store.tryAcquire("s2", "owner-b", LONG, "host-b")).isPresent();

      assertThat(store.writeOffsets(a, "{\"a\":1}")).isTrue();
      assertThat(store.writeOffsets(a, "{\"a\":2}")).isTrue();
      assertThat(store.offsets("s1")).isEqualTo("{\"a\":2}");
      assertThat(store.appendHistory(a, store.nextHistorySeq("s1"), "r1")).isTrue();
      assertThat(store.renew(a, LONG)).isTrue();

      // a releases; b takes over with the next generation, and a's writes change nothing.
      assertThat(store.release(a)).isTrue();
      RelayFence b = store.tryAcquire("s1", "owner-b", LONG, "host-b").orElseThrow();
      assertThat(b.generation()).isEqualTo(2);
      assertThat(store.holds(a)).isFalse();
      assertThat(store.holds(b)).isTrue();
      assertThat(store.renew(a, LONG)).isFalse();
      assertThat(store.writeOffsets(a, "{\"stale\":true}")).isFalse();
      assertThat(store.appendHistory(a, store.nextHistorySeq("s1"), "stale")).isFalse();
      assertThat(store.clearHistory(a)).isFalse();
      assertThat(store.offsets("s1")).isEqualTo("{\"a\":2}");
      assertThat(store.history("s1")).containsExactly("r1");

      assertThat(store.appendHistory(b, store.nextHistorySeq("s1"), "r2")).isTrue();
      assertThat(store.history("s1")).containsExactly("r1", "r2");
      assertThat(store.clearHistory(b)).isTrue();
      assertThat(store.history("s1")).isEmpty();
      assertThat(store.writeOffsets(b, null)).isTrue();
      assertThat(store.offsets("s1")).isNull();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void anExpiredLeaseIsTakenOverWithTheNextGeneration(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      CdcRelayStore store = install(db);
      RelayFence a = store.tryAcquire("s1", "owner-a", Duration.ofMillis(300), "a").orElseThrow();
      assertThat(store.tryAcquire("s1", "owner-b", LONG, "b")).isEmpty();
      Thread.sleep(600);
      RelayFence b = store.tryAcquire("s1", "owner-b", LONG, "b").orElseThrow();
      assertThat(b.generation()).isEqualTo(a.generation() + 1);
      assertThat(store.renew(a, LONG)).as("the expired holder cannot renew").isFalse();
      RelayLeaseRow row = store.lease("s1");
      assertThat(row.getOwnerToken()).isEqualTo("owner-b");
      assertThat(row.getOwnerInfo()).isEqualTo("b");
      assertThat(row.getLeaseUntil()).isAfter(row.getAcquiredAt());
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void sentAndDeadTouchOnlyTheStoresPendingCdcRowsAndOnlyWhileTheFenceHolds(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      CdcRelayStore store = install(db);
      StoreTransactions tx = new StoreTransactions(db.dataSource(), store.store());
      Journal journal = new Journal(db.dataSource(), store.store());
      insert(tx, journal, "c1", "s1", PublishMode.CDC, 1);
      insert(tx, journal, "c2", "s1", PublishMode.CDC, 2);
      insert(tx, journal, "c3", "s1", PublishMode.CDC, 3);
      insert(tx, journal, "o1", "s1", PublishMode.SEND, 4);
      insert(tx, journal, "x1", "other", PublishMode.CDC, 5);
      RelayFence a = store.tryAcquire("s1", "owner-a", LONG, "a").orElseThrow();

      int sent = store.markSent(a, Map.of("c1", "m1", "o1", "m2", "x1", "m3"));
      assertThat(sent).as("only c1 is a CDC row of s1").isEqualTo(1);
      JournalRow c1 = journal.find("c1");
      assertThat(c1.getStatus()).isEqualTo(JournalStatus.SENT);
      assertThat(c1.getBrokerMessageId()).isEqualTo("m1");
      assertThat(c1.getSentAt()).isNotNull();
      assertThat(status(store, "o1")).isEqualTo(JournalStatus.PENDING);
      assertThat(status(store, "x1")).isEqualTo(JournalStatus.PENDING);

      assertThat(store.markDead(a, "c2", "TOO_LARGE", "refused")).isEqualTo(1);
      JournalRow c2 = journal.find("c2");
      assertThat(c2.getStatus()).isEqualTo(JournalStatus.DEAD);
      assertThat(c2.getLastErrorCode()).isEqualTo("TOO_LARGE");
      assertThat(store.markDead(a, "c1", "X", "not pending")).isZero();
      assertThat(store.settledAmong(java.util.List.of("c1", "c2", "c3", "missing")))
          .as("SENT and DEAD are settled; PENDING and unknown rows are not")
          .containsExactlyInAnyOrder("c1", "c2");
      assertThat(store.journalStatus("c3")).isEqualTo(JournalStatus.PENDING);
      assertThat(store.journalStatus("missing")).isNull();

      store.release(a);
      Optional<RelayFence> b = store.tryAcquire("s1", "owner-b", LONG, "b");
      assertThat(b).isPresent();
      assertThat(store.markSent(a, Map.of("c3", "m4"))).as("fenced").isZero();
      assertThat(store.markDead(a, "c3", "X", "fenced")).isZero();
      assertThat(status(store, "c3")).isEqualTo(JournalStatus.PENDING);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void orderBlockersAreTheUnsentOrDeadLowerVersionsOfTheAggregate(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      CdcRelayStore store = install(db);
      StoreTransactions tx = new StoreTransactions(db.dataSource(), store.store());
      Journal journal = new Journal(db.dataSource(), store.store());
      insert(tx, journal, "v1", "s1", PublishMode.CDC, 1);
      insert(tx, journal, "v2", "s1", PublishMode.CDC, 2);
      insert(tx, journal, "v3", "s1", PublishMode.CDC, 3);
      assertThat(store.orderBlockers("s1", "v3", "Order", "o-1", 3, "Order:o-1"))
          .containsExactlyInAnyOrder("v1", "v2");
      assertThat(store.orderBlockers("s1", "v1", "Order", "o-1", 1, "Order:o-1")).isEmpty();
      RelayFence a = store.tryAcquire("s1", "owner-a", LONG, "a").orElseThrow();
      store.markSent(a, Map.of("v1", "m1"));
      store.markDead(a, "v2", "TOO_LARGE", "refused");
      assertThat(store.orderBlockers("s1", "v3", "Order", "o-1", 3, "Order:o-1"))
          .as("a DEAD lower version blocks")
          .containsExactly("v2");
      assertThat(store.orderBlockers("other", "v3", "Order", "o-1", 3, "Order:o-1")).isEmpty();
    }
  }

  private static JournalStatus status(CdcRelayStore store, String eventId) throws Exception {
    return store.run(m -> m.journalStatus(eventId));
  }

  private static void insert(
      StoreTransactions tx,
      Journal journal,
      String eventId,
      String storeId,
      PublishMode mode,
      long version)
      throws Exception {
    JournalRow r = new JournalRow();
    r.setEventId(eventId);
    r.setAttemptId("a-" + eventId);
    r.setStoreId(storeId);
    r.setAggregateType("Order");
    r.setAggregateId("o-1");
    r.setAggregateVersion(version);
    r.setEventType("OrderPaid");
    r.setEventVersion(1);
    r.setDestination("orders");
    r.setPayload("{}".getBytes(StandardCharsets.UTF_8));
    r.setPayloadHash("0".repeat(64));
    r.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    r.setPublishMode(mode);
    r.setMessageGroup("Order:o-1");
    tx.run(
        c -> {
          journal.insert(c, r, 600_000);
          return null;
        });
  }
}
