package io.txmsg.store.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.store.StoreFixtures;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The attempt and journal statements, the same contract on every enabled database (H2 by default;
 * MariaDB and PG with -Dtxmsg.test.databases).
 */
class JournalContractTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  private static TxmsgStore install(DatabaseFixture db) {
    assertThat(SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_")).isTrue();
    assertThat(SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_")).isFalse();
    return TxmsgStore.detect(db.dataSource(), "txmsg_");
  }

  @ParameterizedTest
  @MethodSource(DB)
  void duplicateAttemptKeyIsRecognisedBySqlStateClass23(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      inTx(
          db.dataSource(),
          store,
          s -> s.getMapper(AttemptMapper.class).insert("a1", "e1", "s", AttemptState.COMMITTED));
      assertThatThrownBy(
              () ->
                  inTx(
                      db.dataSource(),
                      store,
                      s ->
                          s.getMapper(AttemptMapper.class)
                              .insert("a1", "e1", "s", AttemptState.FENCED)))
          .satisfies(e -> assertThat(SqlStates.isDuplicateKey(e)).isTrue());
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void fenceInsertWinsWhenNoAttemptRowExists(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      Attempts writer = new Attempts(db.dataSource(), store);
      AttemptInsert r = writer.insert("a1", "e1", "s", AttemptState.FENCED, Duration.ofMillis(500));
      assertThat(r.outcome()).isEqualTo(AttemptInsert.Outcome.INSERTED);
      assertThat(writer.read("a1")).isEqualTo(AttemptState.FENCED);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void fenceAnswersLockedWhileTheAttemptTransactionHoldsTheKeyThenSeesItsCommit(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      Attempts writer = new Attempts(db.dataSource(), store);
      try (Connection holder = db.dataSource().getConnection()) {
        holder.setAutoCommit(false);
        try (SqlSession s = store.session(holder)) {
          s.getMapper(AttemptMapper.class).insert("a1", "e1", "s", AttemptState.COMMITTED);
          AttemptInsert r =
              writer.insert("a1", "e1", "s", AttemptState.FENCED, Duration.ofMillis(300));
          assertThat(r.outcome()).isEqualTo(AttemptInsert.Outcome.LOCKED);
          holder.commit();
        }
      }
      AttemptInsert after =
          writer.insert("a1", "e1", "s", AttemptState.FENCED, Duration.ofMillis(300));
      assertThat(after.outcome()).isEqualTo(AttemptInsert.Outcome.EXISTS);
      assertThat(after.existingState()).isEqualTo(AttemptState.COMMITTED);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void fenceWinsAfterTheHolderRollsBack(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      Attempts writer = new Attempts(db.dataSource(), store);
      try (Connection holder = db.dataSource().getConnection()) {
        holder.setAutoCommit(false);
        try (SqlSession s = store.session(holder)) {
          s.getMapper(AttemptMapper.class).insert("a1", "e1", "s", AttemptState.COMMITTED);
          holder.rollback();
        }
      }
      assertThat(
              writer.insert("a1", "e1", "s", AttemptState.FENCED, Duration.ofMillis(300)).outcome())
          .isEqualTo(AttemptInsert.Outcome.INSERTED);
    }
  }

  /**
   * The joined publish's statements on a caller's transaction: a duplicate eventId answers false
   * and leaves that transaction usable (it goes on writing and commits); the existing row is read
   * with its hash; the transaction's own attempt row turns ROLLED_BACK.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aDuplicateJournalInsertInTheCallersTransactionAnswersFalseAndLeavesItCommittable(
      TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      Journal journal = new Journal(db.dataSource(), store);
      Attempts attempts = new Attempts(db.dataSource(), store);
      JournalRow first = row("e1");
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(first, 0));
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        attempts.insertCommitted(c, "a2", "e1", "s");
        JournalRow again = row("e1");
        again.setAttemptId("a2");
        assertThat(journal.insertIfAbsent(c, again, 0)).isFalse();
        JournalRow existing = journal.lockExisting(c, "e1");
        assertThat(existing.getAttemptId()).isEqualTo(first.getAttemptId());
        assertThat(existing.getPayloadHash()).isEqualTo(first.getPayloadHash());
        assertThat(attempts.markRolledBack(c, "a2")).isEqualTo(1);
        assertThat(attempts.lockState(c, "a2")).isEqualTo(AttemptState.ROLLED_BACK);
        assertThat(journal.insertIfAbsent(c, row("e2"), 0)).isTrue();
        c.commit(); // PostgreSQL would have aborted the transaction on a failed insert
      }
      assertThat(attempts.read("a2")).isEqualTo(AttemptState.ROLLED_BACK);
      assertThat(journal.find("e2")).isNotNull();
      assertThat(journal.find("e1").getAttemptId()).isEqualTo(first.getAttemptId());
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void journalRowRoundTripsAndDueRowsAreClaimedOncePerToken(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      JournalRow row = row("e1");
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row, 0));
      JournalRow read = find(db, store, m -> m.findById("e1"));
      assertThat(read.getStatus()).isEqualTo(JournalStatus.PENDING);
      assertThat(read.getPayload()).containsExactly(1, 2, 3);
      assertThat(read.getHeaders()).isEqualTo("{\"k\":\"v\"}");
      assertThat(read.getCreatedAt()).isNotNull();
      assertThat(read.getNextRetryAt()).isNotNull();

      List<String> due =
          dueRows(db, store, m -> m.selectDue("s", 10).stream().map(DueRow::getEventId).toList());
      assertThat(due).containsExactly("e1");
      int first = count(db, store, m -> m.claim("e1", "t1", 60_000));
      int second = count(db, store, m -> m.claim("e1", "t2", 60_000));
      assertThat(first).isEqualTo(1);
      assertThat(second).isZero();
      int wrongToken = count(db, store, m -> m.republishedAll(Map.of("e1", "m"), "t2", 60_000));
      assertThat(wrongToken).isZero();
      int rightToken = count(db, store, m -> m.republishedAll(Map.of("e1", "m"), "t1", 60_000));
      assertThat(rightToken).isEqualTo(1);
      assertThat(
              dueRows(
                  db, store, m -> m.selectDue("s", 10).stream().map(DueRow::getEventId).toList()))
          .isEmpty();
      int sent = count(db, store, m -> m.markSent(List.of("e1", "nope")));
      assertThat(sent).isEqualTo(1);
      assertThat(find(db, store, m -> m.findById("e1")).getStatus()).isEqualTo(JournalStatus.SENT);
    }
  }

  /**
   * The producer's acknowledgements of a batch, recorded set-based (two rows per statement here, so
   * a batch spans several statements): every PENDING row gets its own message id; a row settled
   * meanwhile keeps its state and id; an unknown id changes nothing. The per-row form (1 row per
   * statement) records the same.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void sendOksOfABatchAreRecordedSetBasedEachRowWithItsOwnMessageId(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      Journal journal = new Journal(db.dataSource(), store);
      for (String id : List.of("s1", "s2", "s3", "settled", "w1", "w2", "w3", "p1", "p2")) {
        inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row(id), 0));
      }
      assertThat(count(db, store, m -> m.markSent(List.of("settled")))).isEqualTo(1);
      java.time.Instant before = find(db, store, m -> m.findById("w1")).getNextRetryAt();

      Map<String, String> acks = new java.util.LinkedHashMap<>();
      acks.put("s1", "m-s1");
      acks.put("s2", "m-s2");
      acks.put("settled", "m-late");
      acks.put("s3", "m-s3");
      acks.put("unknown", "m-unknown");
      assertThat(journal.recordSendOks(acks, true, 0, 2)).isEqualTo(3);
      for (String id : List.of("s1", "s2", "s3")) {
        JournalRow r = find(db, store, m -> m.findById(id));
        assertThat(r.getStatus()).as(id).isEqualTo(JournalStatus.SENT);
        assertThat(r.getBrokerMessageId()).as(id).isEqualTo("m-" + id);
        assertThat(r.getSentAt()).as(id).isNotNull();
      }
      assertThat(find(db, store, m -> m.findById("settled")).getBrokerMessageId())
          .as("a settled row keeps its id")
          .isNull();

      // CONSUMER confirmation: the rows stay PENDING with their id, due again an hour from now.
      Map<String, String> waits = Map.of("w1", "m-w1", "w2", "m-w2", "w3", "m-w3");
      assertThat(journal.recordSendOks(waits, false, 3_600_000, 2)).isEqualTo(3);
      for (String id : waits.keySet()) {
        JournalRow r = find(db, store, m -> m.findById(id));
        assertThat(r.getStatus()).as(id).isEqualTo(JournalStatus.PENDING);
        assertThat(r.getBrokerMessageId()).as(id).isEqualTo("m-" + id);
        assertThat(r.getNextRetryAt()).as(id).isAfter(before.plusSeconds(1800));
      }

      // The per-row form, kept to compare the two, records the same.
      assertThat(journal.recordSendOks(Map.of("p1", "m-p1", "p2", "m-p2"), true, 0, 1))
          .isEqualTo(2);
      for (String id : List.of("p1", "p2")) {
        JournalRow r = find(db, store, m -> m.findById(id));
        assertThat(r.getStatus()).as(id).isEqualTo(JournalStatus.SENT);
        assertThat(r.getBrokerMessageId()).as(id).isEqualTo("m-" + id);
      }
      assertThatThrownBy(() -> journal.recordSendOks(acks, true, 0, 0))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aBatchClaimReturnsItsRowsLeasedOldestFirstOneRowPerMessageGroupAndOnlyOnce(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      JournalRow groupFirst = row("g1");
      groupFirst.setMessageGroup("G");
      groupFirst.setAggregateId("o-2");
      JournalRow groupSecond = row("g2");
      groupSecond.setMessageGroup("G");
      groupSecond.setAggregateId("o-3");
      inTx(
          db.dataSource(),
          store,
          s -> {
            JournalMapper m = s.getMapper(JournalMapper.class);
            m.insert(row("c"), -1_000);
            m.insert(row("a"), -5_000);
            m.insert(groupSecond, -3_500);
            m.insert(row("b"), -2_000);
            m.insert(groupFirst, -4_000);
            return m.insert(row("later"), 600_000);
          });
      JournalClaims claims = new JournalClaims(db.dataSource(), store, "s");

      List<JournalRow> claimed = claims.claimDue("t", 60_000, 10);

      // g2 shares g1's message group: one row of a group per batch.
      assertThat(claimed).extracting(JournalRow::getEventId).containsExactly("a", "g1", "b", "c");
      assertThat(claimed)
          .allSatisfy(
              r -> {
                assertThat(r.getStatus()).isEqualTo(JournalStatus.SENDING);
                assertThat(r.getOwnerToken()).isEqualTo("t");
                assertThat(r.getLeaseUntil()).isAfter(r.getNextRetryAt());
                assertThat(r.getPayload()).containsExactly(1, 2, 3);
              });
      // Claimed rows are leased; g2 waits while g1 of its group is in flight; later is not due.
      assertThat(claims.claimDue("u", 60_000, 10)).isEmpty();
      assertThat(find(db, store, m -> m.findById("a")).getOwnerToken()).isEqualTo("t");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aStoreClaimsAndAgesOutOnlyItsOwnRowsWhenStoresShareTheTables(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      JournalRow other = row("theirs");
      other.setStoreId("billing");
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row("ours"), 0));
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(other, 0));

      List<JournalRow> claimed =
          new JournalClaims(db.dataSource(), store, "s").claimDue("t", 60_000, 10);
      assertThat(claimed).extracting(JournalRow::getEventId).containsExactly("ours");
      assertThat(
              dueRows(
                  db,
                  store,
                  m -> m.selectDue("billing", 10).stream().map(DueRow::getEventId).toList()))
          .containsExactly("theirs");

      // Both rows RETRY and long past any retention: only the calling store's row goes DEAD.
      count(db, store, m -> m.retry("ours", "t", 0, "X", "x"));
      count(db, store, m -> m.claim("theirs", "u", 60_000));
      count(db, store, m -> m.retry("theirs", "u", 0, "X", "x"));
      Thread.sleep(20);
      assertThat(count(db, store, m -> m.deadTooOld("s", 1))).isEqualTo(1);
      assertThat(find(db, store, m -> m.findById("ours")).getStatus())
          .isEqualTo(JournalStatus.DEAD);
      assertThat(find(db, store, m -> m.findById("theirs")).getStatus())
          .isEqualTo(JournalStatus.RETRY);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void expiredLeaseIsTakenOverAndTheOldOwnersUpdateIsRefused(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row("e1"), 0));
      assertThat(count(db, store, m -> m.claim("e1", "old", 1))).isEqualTo(1);
      Thread.sleep(50);
      assertThat(count(db, store, m -> m.claim("e1", "new", 60_000))).isEqualTo(1);
      assertThat(count(db, store, m -> m.retry("e1", "old", 10, "X", "late"))).isZero();
      assertThat(count(db, store, m -> m.dead("e1", "new", "TOPIC_NOT_FOUND", "m"))).isEqualTo(1);
      JournalRow dead = find(db, store, m -> m.findById("e1"));
      assertThat(dead.getStatus()).isEqualTo(JournalStatus.DEAD);
      assertThat(dead.getLastErrorCode()).isEqualTo("TOPIC_NOT_FOUND");
    }
  }

  /**
   * The remoting give-up drain's claim (the broker stopped checking the half message back): an
   * unsettled row or one whose lease expired is taken with BROKER_GAVE_UP recorded; a row leased to
   * a live owner or DEAD is not; a SENT row only when SENT proves nothing (PROXY_ACK, {@code
   * includeSent}). Here on every database, because CI's database step runs the drain itself
   * (ReconcilerTest, remoting only) on MariaDB, not on PostgreSQL.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void theGiveUpClaimTakesUnsettledAndExpiredRowsAndSentOnesOnlyWhenAsked(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      for (String id : List.of("pending", "sent", "dead", "expired")) {
        inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row(id), 0));
      }
      assertThat(count(db, store, m -> m.claimGivenUp("pending", "t1", 60_000, false)))
          .isEqualTo(1);
      JournalRow taken = find(db, store, m -> m.findById("pending"));
      assertThat(taken.getStatus()).isEqualTo(JournalStatus.SENDING);
      assertThat(taken.getOwnerToken()).isEqualTo("t1");
      assertThat(taken.getLastErrorCode()).isEqualTo("BROKER_GAVE_UP");
      assertThat(count(db, store, m -> m.claimGivenUp("pending", "t2", 60_000, true)))
          .as("leased to a live owner")
          .isZero();

      assertThat(count(db, store, m -> m.markSent(List.of("sent")))).isEqualTo(1);
      assertThat(count(db, store, m -> m.claimGivenUp("sent", "t1", 60_000, false))).isZero();
      assertThat(count(db, store, m -> m.claimGivenUp("sent", "t1", 60_000, true))).isEqualTo(1);

      assertThat(count(db, store, m -> m.claim("dead", "t0", 60_000))).isEqualTo(1);
      assertThat(count(db, store, m -> m.dead("dead", "t0", "TOPIC_NOT_FOUND", "m"))).isEqualTo(1);
      assertThat(count(db, store, m -> m.claimGivenUp("dead", "t1", 60_000, true))).isZero();

      assertThat(count(db, store, m -> m.claim("expired", "t0", 1))).isEqualTo(1);
      Thread.sleep(50);
      assertThat(count(db, store, m -> m.claimGivenUp("expired", "t1", 60_000, false)))
          .isEqualTo(1);
      assertThat(count(db, store, m -> m.claimGivenUp("nope", "t1", 60_000, true))).isZero();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void checkbackCountCountsOnlyTheCommittedAttemptsCheckbacks(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      JournalRow row = row("e1");
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row, 0));
      // A check-back of an earlier, dead attempt of the same eventId is not counted.
      assertThat(count(db, store, m -> m.recordCheckback("e1", "dead-attempt"))).isZero();
      assertThat(count(db, store, m -> m.recordCheckback("e1", row.getAttemptId()))).isEqualTo(1);
      assertThat(count(db, store, m -> m.recordCheckback("e1", row.getAttemptId()))).isEqualTo(1);
      JournalRow read = find(db, store, m -> m.findById("e1"));
      assertThat(read.getCheckbackCount()).isEqualTo(2);
      assertThat(read.getLastCheckbackAt()).isNotNull();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void retryPushesNextRetryAtIntoTheFuture(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      TxmsgStore store = install(db);
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row("e1"), 0));
      count(db, store, m -> m.claim("e1", "t", 60_000));
      assertThat(count(db, store, m -> m.retry("e1", "t", 60_000, "TIMEOUT", "x"))).isEqualTo(1);
      JournalRow r = find(db, store, m -> m.findById("e1"));
      assertThat(r.getStatus()).isEqualTo(JournalStatus.RETRY);
      assertThat(r.getRetryCount()).isEqualTo(1);
      assertThat(r.getNextRetryAt()).isAfter(r.getCreatedAt().plusSeconds(30));
      assertThat(
              dueRows(
                  db, store, m -> m.selectDue("s", 10).stream().map(DueRow::getEventId).toList()))
          .isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void prefixIsValidatedAndUsed(TestDatabase kind) throws Exception {
    assertThatThrownBy(() -> TablePrefix.validate("x; DROP TABLE y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tablePrefix");
    try (DatabaseFixture db = kind.open()) {
      assertThat(SchemaInstaller.installIfMissing(db.dataSource(), "billing_tx_")).isTrue();
      TxmsgStore store = TxmsgStore.detect(db.dataSource(), "billing_tx_");
      inTx(db.dataSource(), store, s -> s.getMapper(JournalMapper.class).insert(row("e1"), 0));
      assertThat((long) count(db, store, m -> (int) m.countByStatus(JournalStatus.PENDING)))
          .isEqualTo(1L);
    }
  }

  private static JournalRow row(String eventId) {
    return StoreFixtures.journalRow(eventId);
  }

  static int count(
      DatabaseFixture db, TxmsgStore store, java.util.function.ToIntFunction<JournalMapper> f)
      throws Exception {
    Integer n = inTx(db.dataSource(), store, s -> f.applyAsInt(s.getMapper(JournalMapper.class)));
    return n;
  }

  static List<String> dueRows(
      DatabaseFixture db,
      TxmsgStore store,
      java.util.function.Function<JournalMapper, List<String>> f)
      throws Exception {
    return inTx(db.dataSource(), store, s -> f.apply(s.getMapper(JournalMapper.class)));
  }

  static JournalRow find(
      DatabaseFixture db,
      TxmsgStore store,
      java.util.function.Function<JournalMapper, JournalRow> f)
      throws Exception {
    return inTx(db.dataSource(), store, s -> f.apply(s.getMapper(JournalMapper.class)));
  }

  interface Work<T> {
    T run(SqlSession s) throws Exception;
  }

  static <T> T inTx(DataSource ds, TxmsgStore store, Work<T> work) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (SqlSession s = store.session(c)) {
        T t = work.run(s);
        c.commit();
        return t;
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }
}
