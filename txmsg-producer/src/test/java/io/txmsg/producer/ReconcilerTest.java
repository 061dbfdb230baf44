package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.pays;
import static io.txmsg.testkit.transport.TestTransport.DELIVERY;
import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.Resolution;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.transport.TestTransport;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The journal as an outbox: a cluster that gives up after 3 checks (its own, so the shared one
 * keeps production-like settings), a resolver that cannot answer, and the reconciler.
 */
class ReconcilerTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";
  private static EmbeddedRocketMQ givingUp;

  @BeforeAll
  static void startCluster() {
    givingUp =
        EmbeddedRocketMQ.builder()
            .transactionCheckInterval(Duration.ofMillis(500))
            .transactionTimeout(Duration.ofMillis(1000))
            .transactionCheckMax(3)
            .start();
  }

  @AfterAll
  static void killCluster() {
    givingUp.close();
  }

  /** A database that cannot answer: every check-back is UNKNOWN. */
  static final class Unreachable implements CheckbackResolver {
    @Override
    public Resolution resolve(CheckbackRequest request) {
      return Resolution.UNKNOWN;
    }
  }

  /**
   * Over gRPC the reconciler republishes the row after republishAfter (6 s here). Over remoting the
   * give-up drain reads the broker's give-up topic and republishes at once, well before
   * republishAfter (60 s here), recording BROKER_GAVE_UP on the row.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aCommitTheBrokerNeverReceivedAndThenGaveUpOnIsRepublishedDeliveredAndConfirmed(
      TestTransport transport, TestDatabase kind) throws Exception {
    boolean drain = transport == TestTransport.REMOTING;
    Duration republishAfter = drain ? Duration.ofSeconds(60) : Duration.ofSeconds(6);
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.on(givingUp),
            s -> s.republishAfter(republishAfter).reconcileInterval(Duration.ofMillis(500)),
            new Unreachable())) {
      h.interceptor.delegate =
          new ProducerInterceptor() {
            @Override
            public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
              return false;
            }
          };
      String id = UUID.randomUUID().toString().substring(0, 12);
      long start = System.nanoTime();
      h.txmsg.template().execute(h.message(id, 5), pays(id, 5));
      String eventId = "evt-" + id;
      assertThat(await(Duration.ofSeconds(40), () -> h.deliveryCount(eventId) >= 1))
          .as("republished after the broker gave up")
          .isTrue();
      long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();
      System.out.println(
          "MEASURED give-up-to-delivery via "
              + (drain ? "give-up drain" : "reconciler")
              + " ms="
              + ms
              + " db="
              + kind.id());
      if (drain) {
        assertThat(ms).as("delivered by the drain, not after republishAfter").isLessThan(45_000);
        assertThat(h.journal(eventId).getLastErrorCode()).isEqualTo("BROKER_GAVE_UP");
      } else {
        assertThat(h.journal(eventId).getLastErrorCode()).isNotEqualTo("BROKER_GAVE_UP");
      }
      assertThat(await(DELIVERY, () -> h.journalStatus(eventId) == JournalStatus.SENT)).isTrue();
      Thread.sleep(2000);
      assertThat(h.deliveryCount(eventId)).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void twoReconcilersClaimDisjointRowsAndAPermanentErrorMakesTheRowDead(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(kind, transport.on(givingUp), s -> s.reconcilerEnabled(false))) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ids.add(insertDueRow(h, "missing-topic-" + UUID.randomUUID().toString().substring(0, 6)));
      }
      Reconciler r = h.txmsg.reconciler();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Callable<List<String>> claim =
            () ->
                r.claim(UUID.randomUUID().toString()).stream().map(JournalRow::getEventId).toList();
        Future<List<String>> a = pool.submit(claim);
        Future<List<String>> b = pool.submit(claim);
        Set<String> first = new HashSet<>(a.get());
        Set<String> second = new HashSet<>(b.get());
        Set<String> overlap = new HashSet<>(first);
        overlap.retainAll(second);
        assertThat(overlap).isEmpty();
        Set<String> union = new HashSet<>(first);
        union.addAll(second);
        assertThat(union).containsExactlyInAnyOrderElementsOf(ids);
      } finally {
        pool.shutdownNow();
      }
      // The leases above are 10 s; a fresh row shows the permanent-error path.
      String dead =
          insertDueRow(h, "no-such-topic-" + UUID.randomUUID().toString().substring(0, 6));
      Reconciler.Round round = r.runOnce();
      assertThat(round.dead()).isEqualTo(1);
      JournalRow row = h.journal(dead);
      assertThat(row.getStatus()).isEqualTo(JournalStatus.DEAD);
      assertThat(row.getLastErrorCode()).isEqualTo("TOPIC_NOT_FOUND");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void aTransientPublishFailureRetriesWithGrowingBackoff(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.on(givingUp),
            s ->
                s.reconcilerEnabled(false)
                    .retryBackoff(Duration.ofMillis(200), Duration.ofMinutes(1)))) {
      String eventId = insertDueRow(h, h.topic);
      // A producer that is no longer running fails every send: a transient client error.
      h.txmsg.close();
      Reconciler r = h.txmsg.reconciler();
      assertThat(r.runOnce().retried()).isEqualTo(1);
      JournalRow first = h.journal(eventId);
      assertThat(first.getStatus()).isEqualTo(JournalStatus.RETRY);
      assertThat(first.getRetryCount()).isEqualTo(1);
      await(
          Duration.ofSeconds(5),
          () -> {
            try {
              return r.runOnce().retried() == 1;
            } catch (Exception e) {
              return false;
            }
          });
      JournalRow second = h.journal(eventId);
      assertThat(second.getRetryCount()).isEqualTo(2);
      long firstDelay = Duration.between(first.getUpdatedAt(), first.getNextRetryAt()).toMillis();
      long secondDelay =
          Duration.between(second.getUpdatedAt(), second.getNextRetryAt()).toMillis();
      assertThat(secondDelay).isGreaterThan(firstDelay);
    }
  }

  /**
   * A round sends its rows with several in flight and records them in one statement: every row is
   * delivered once and keeps the message id of its own send. PROXY_ACK, so that no confirm group
   * marks rows SENT before the round records them (with it, such rows keep their earlier id).
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aRoundSendsManyRowsConcurrentlyAndRecordsEachRowsOwnMessageId(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.on(givingUp),
            s ->
                s.reconcilerEnabled(false)
                    .reconcileConcurrency(4)
                    .confirmation(DeliveryConfirmation.PROXY_ACK))) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        ids.add(insertDueRow(h, h.topic));
      }
      Reconciler.Round round = h.txmsg.reconciler().runOnce();
      assertThat(round.claimed()).isEqualTo(25);
      assertThat(round.republished()).isEqualTo(25);
      assertSentWithOwnMessageIdsAndDeliveredOnce(h, ids);
    }
  }

  /** With the default confirmation the rows end SENT by the confirm group, delivered once. */
  @ParameterizedTest
  @MethodSource(DB)
  void aConcurrentRoundWithTheConfirmGroupEndsEveryRowSentAndDeliveredOnce(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(kind, transport.on(givingUp), s -> s.reconcilerEnabled(false))) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 25; i++) {
        ids.add(insertDueRow(h, h.topic));
      }
      Reconciler.Round round = h.txmsg.reconciler().runOnce();
      assertThat(round.republished()).isEqualTo(25);
      for (String id : ids) {
        assertThat(await(DELIVERY, () -> h.journalStatus(id) == JournalStatus.SENT))
            .as(id)
            .isTrue();
      }
      // SENT says the confirm group read the message from the topic; the test's observer is a
      // separate consumer group and may see it later (CI 2026-12-06: 0 deliveries 1 s after SENT).
      for (String id : ids) {
        assertThat(await(Duration.ofSeconds(60), () -> h.deliveryCount(id) >= 1)).as(id).isTrue();
      }
      Thread.sleep(1000);
      for (String id : ids) {
        assertThat(h.deliveryCount(id)).as(id).isEqualTo(1);
        assertThat(h.journal(id).getOwnerToken()).as(id).isNull();
      }
    }
  }

  /**
   * A backlog of several batches is drained by one {@code drain()}: batches back to back, the next
   * claimed while the current one's sends are in flight, every row sent once with its own message
   * id. A remainder smaller than a batch ends the drain.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void aDrainSendsABacklogOfSeveralBatchesInOneCall(TestTransport transport, TestDatabase kind)
      throws Exception {
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.on(givingUp),
            s ->
                s.reconcilerEnabled(false)
                    .reconcileBatchSize(10)
                    .reconcileConcurrency(4)
                    .confirmation(DeliveryConfirmation.PROXY_ACK))) {
      List<String> ids = insertDueRows(h, h.topic, 35);
      Reconciler.Round drained = h.txmsg.reconciler().drain();
      assertThat(drained.claimed()).isEqualTo(35);
      assertThat(drained.republished()).isEqualTo(35);
      assertThat(h.txmsg.reconciler().drain().claimed()).as("nothing left").isZero();
      assertSentWithOwnMessageIdsAndDeliveredOnce(h, ids);
    }
  }

  /**
   * Every row is SENT, released, with its own send's message id, and delivered exactly once. For
   * rounds run with PROXY_ACK, which records SENT itself.
   */
  private static void assertSentWithOwnMessageIdsAndDeliveredOnce(
      ProducerHarness h, List<String> ids) throws Exception {
    Set<String> messageIds = new HashSet<>();
    for (String id : ids) {
      JournalRow row = h.journal(id);
      assertThat(row.getStatus()).as(id).isEqualTo(JournalStatus.SENT);
      assertThat(row.getOwnerToken()).as(id).isNull();
      assertThat(row.getBrokerMessageId()).as(id).isNotBlank();
      messageIds.add(row.getBrokerMessageId());
    }
    assertThat(messageIds).as("each row its own send's id").hasSize(ids.size());
    for (String id : ids) {
      // 60 s: in one CI run (2026-12-04, remoting, MariaDB, loaded machine) one of 25 rows took
      // longer than 30 s to reach the observer; 30 s is also the remoting client's timeout for a
      // long-polled pull, a suspect not established (docs/reliability.md, remoting consumer
      // kill).
      assertThat(await(Duration.ofSeconds(60), () -> h.deliveryCount(id) >= 1)).as(id).isTrue();
    }
    Thread.sleep(1000);
    for (String id : ids) {
      assertThat(h.deliveryCount(id)).as(id).isEqualTo(1);
    }
  }

  /**
   * The scheduled reconciler drains a backlog larger than its batch in one interval: all 40 rows (4
   * batches) are recorded SENT within less than one reconcileInterval of each other, by the
   * database's clock. One batch per interval, as before the drain, would spread them over three
   * intervals. The interval is long (12 s) so that the bound tells one tick from several, not how
   * fast the machine is: a loaded CI machine took 4.7 s for the 40 sends of one tick.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void theScheduledReconcilerDrainsABacklogLargerThanABatchInOneInterval(
      TestTransport transport, TestDatabase kind) throws Exception {
    Duration interval = Duration.ofSeconds(12);
    try (ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.on(givingUp),
            s ->
                s.reconcileInterval(interval)
                    .reconcileBatchSize(10)
                    .confirmation(DeliveryConfirmation.PROXY_ACK))) {
      List<String> ids = insertDueRows(h, h.topic, 40); // one commit: one tick sees them all
      for (String id : ids) {
        assertThat(await(DELIVERY, () -> h.journalStatus(id) == JournalStatus.SENT))
            .as(id)
            .isTrue();
      }
      List<Instant> sentAt = new ArrayList<>();
      for (String id : ids) {
        sentAt.add(h.journal(id).getSentAt());
      }
      Duration spread =
          Duration.between(
              sentAt.stream().min(Instant::compareTo).orElseThrow(),
              sentAt.stream().max(Instant::compareTo).orElseThrow());
      assertThat(spread).as("first to last SENT").isLessThan(interval);
    }
  }

  /** {@code n} committed rows whose confirmation is overdue, in one transaction. */
  private static List<String> insertDueRows(ProducerHarness h, String topic, int n)
      throws Exception {
    List<String> ids = new ArrayList<>();
    Journal journal = h.journal;
    try (Connection c = h.db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        JournalRow row = dueRow(h, topic);
        journal.insert(c, row, 0);
        ids.add(row.getEventId());
      }
      c.commit();
    }
    return ids;
  }

  /** A committed row whose confirmation is overdue, written as the producer would. */
  private static String insertDueRow(ProducerHarness h, String topic) throws Exception {
    JournalRow row = dueRow(h, topic);
    try (Connection c = h.db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      h.journal.insert(c, row, 0);
      c.commit();
    }
    return row.getEventId();
  }

  private static JournalRow dueRow(ProducerHarness h, String topic) {
    JournalRow row = new JournalRow();
    String eventId = "evt-" + UUID.randomUUID();
    row.setEventId(eventId);
    row.setAttemptId(UUID.randomUUID().toString());
    row.setStoreId(h.storeId);
    row.setAggregateType("Payment");
    row.setAggregateId(eventId);
    row.setAggregateVersion(1);
    row.setEventType("PaymentSucceeded");
    row.setEventVersion(1);
    row.setDestination(topic);
    row.setPayload(new byte[] {1});
    row.setPayloadHash("0".repeat(64));
    row.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    return row;
  }
}
