package io.txmsg.producer;

import static io.txmsg.producer.ProducerHarness.await;
import static io.txmsg.producer.ProducerHarness.pays;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deliveryMode CDC on the producer's side, without a relay: the journal rows are written as OUTBOX
 * writes them, with publish_mode CDC, nothing is sent after commit, and the reconciler takes a row
 * only once it is cdcFallbackAfter old (the relay's own tests are in txmsg-cdc).
 */
class CdcModeTest {
  private static final Duration FALLBACK = Duration.ofSeconds(3);

  /** Real transports × the enabled databases that have a log (CDC refuses H2). */
  static Stream<Arguments> realWithLogDatabases() {
    return TestTransport.realWith(
        TestDatabases.list().stream().filter(db -> db != TestDatabase.H2).toList());
  }

  private static final String LOG_DATABASES = "io.txmsg.producer.CdcModeTest#realWithLogDatabases";

  /** A CDC producer whose reconciler runs only when the test says so; counts immediate sends. */
  private static ProducerHarness cdc(
      TestTransport transport,
      TestDatabase kind,
      AtomicInteger sends,
      Consumer<TxProducerSettings> tweak)
      throws Exception {
    ProducerHarness h =
        new ProducerHarness(
            kind,
            transport.open(),
            TopicType.NORMAL,
            t -> t,
            s -> {
              s.deliveryMode(DeliveryMode.CDC).cdcFallbackAfter(FALLBACK).reconcilerEnabled(false);
              tweak.accept(s);
            });
    h.interceptor.delegate =
        new ProducerInterceptor() {
          @Override
          public boolean beforeSend(TxMessage message, String attemptId) {
            sends.incrementAndGet();
            return true;
          }
        };
    OutboxTest.ready(transport, h);
    return h;
  }

  private static String id() {
    return UUID.randomUUID().toString().substring(0, 12);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void aCdcExecuteWritesItsRowsAsOutboxDoesWithPublishModeCdcAndSendsNothingAfterCommit(
      TestTransport transport, TestDatabase kind) throws Exception {
    AtomicInteger sends = new AtomicInteger();
    try (ProducerHarness h = cdc(transport, kind, sends, s -> {})) {
      String id = id();
      TxMessage extra =
          TxMessage.builder()
              .eventId("extra-" + id)
              .topic(h.topic)
              .eventType("LedgerPosted")
              .aggregate("Ledger", id, 1)
              .payload("{\"l\":1}".getBytes(StandardCharsets.UTF_8))
              .build();
      TxResult<Object> r =
          h.txmsg
              .template()
              .execute(
                  h.message(id, 5),
                  ctx -> {
                    ProducerHarness.insertPayment(ctx.connection(), id, 5);
                    ctx.publish(extra);
                    return null;
                  });

      assertThat(r.outcome()).isEqualTo(TxResult.Outcome.COMMITTED);
      assertThat(r.brokerAcknowledged()).as("nothing is sent on the caller's thread").isFalse();
      assertThat(r.publishedEventIds()).containsExactly("extra-" + id);
      assertThat(sends.get()).as("immediate sends after commit").isZero();
      assertThat(h.paymentExists(id)).isTrue();
      for (String eventId : r.allEventIds()) {
        JournalRow row = h.journal(eventId);
        assertThat(row.getPublishMode()).as(eventId).isEqualTo(PublishMode.CDC);
        assertThat(row.getStatus()).as(eventId).isEqualTo(JournalStatus.PENDING);
        assertThat(row.getAttemptId()).as(eventId).isEqualTo(r.attemptId());
        assertThat(row.getOwnerToken()).as(eventId).isNull();
        // The reconciler's fallback time is fixed at the insert, from the database clock.
        assertThat(row.getNextRetryAt())
            .as(eventId + " due no earlier than cdcFallbackAfter after created_at")
            .isAfterOrEqualTo(row.getCreatedAt().plus(FALLBACK));
      }
      // No attempt row: nothing fences in OUTBOX-style modes.
      assertThat(h.attemptStatesOf("evt-" + id)).isEmpty();

      // An idempotent retry of the same eventId is ALREADY_COMMITTED, as in OUTBOX.
      TxResult<Object> again = h.txmsg.template().execute(h.message(id, 5), pays(id, 5));
      assertThat(again.alreadyCommitted()).isTrue();
      assertThat(sends.get()).isZero();
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void withNoRelayTheReconcilerSendsACdcRowOnlyAfterCdcFallbackAfter(
      TestTransport transport, TestDatabase kind) throws Exception {
    AtomicInteger sends = new AtomicInteger();
    try (ProducerHarness h = cdc(transport, kind, sends, s -> {})) {
      String id = id();
      String eventId = "evt-" + id;
      TxResult<Object> r = h.txmsg.template().execute(h.message(id, 9), pays(id, 9));
      JournalRow written = h.journal(eventId);

      // Before cdcFallbackAfter: not claimed (an OUTBOX row would be due after publishAfter, a
      // HALF_MESSAGE row would be sent as a half message; a CDC row is neither).
      Reconciler.Round early = h.txmsg.reconciler().runOnce();
      assertThat(early.claimed()).isZero();
      assertThat(h.journalStatus(eventId)).isEqualTo(JournalStatus.PENDING);
      assertThat(dbNow(h))
          .as("the early round ran before the row was due")
          .isBefore(written.getNextRetryAt());

      // After it: the reconciler's, sent as a plain send (the topic is NORMAL: a half message
      // would be refused) and SENT from SEND_OK.
      List<Reconciler.Round> rounds = new ArrayList<>();
      assertThat(
              await(
                  Duration.ofSeconds(30),
                  () -> {
                    try {
                      Reconciler.Round round = h.txmsg.reconciler().runOnce();
                      rounds.add(round);
                      return round.republished() == 1;
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  }))
          .as("the reconciler sends the row after cdcFallbackAfter")
          .isTrue();
      assertThat(rounds.stream().mapToInt(Reconciler.Round::dead).sum()).isZero();
      JournalRow sent = h.journal(eventId);
      assertThat(sent.getStatus()).isEqualTo(JournalStatus.SENT);
      assertThat(sent.getBrokerMessageId()).isNotNull();
      assertThat(sent.getSentAt()).isAfterOrEqualTo(written.getNextRetryAt());
      assertThat(await(Duration.ofSeconds(60), () -> h.deliveryCount(eventId) >= 1)).isTrue();
      assertThat(h.deliveries.get(eventId)).containsExactly(r.attemptId());
      assertThat(sends.get()).as("no immediate send").isZero();
    }
  }

  private static java.time.Instant dbNow(ProducerHarness h) throws Exception {
    String sql =
        h.db.kind() == TestDatabase.MARIADB
            ? "SELECT NOW(3)"
            : "SELECT CAST(statement_timestamp() AS TIMESTAMP(3))";
    try (Connection c = h.db.dataSource().getConnection();
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  @Test
  @DatabaseIndependent
  void cdcIsRefusedOnH2AtBuildNamingDeliveryModeBeforeAnythingIsCreated() throws Exception {
    try (TestTransport.Open t = TestTransport.IN_MEMORY.open();
        DatabaseFixture db = TestDatabase.H2.open()) {
      String topic = "cdc-" + UUID.randomUUID().toString().substring(0, 8);
      t.createTopic(topic, TopicType.NORMAL);
      TxProducer.Builder b =
          TxProducer.builder()
              .dataSource(db.dataSource())
              .transport(t.transport())
              .settings(
                  new TxProducerSettings()
                      .topics(topic)
                      .deliveryMode(DeliveryMode.CDC)
                      .autoCreateSchema(true));
      assertThatThrownBy(b::build)
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("H2")
          .hasMessageContaining("OUTBOX or HALF_MESSAGE")
          .satisfies(
              e -> assertThat(((InvalidSettingsException) e).setting()).isEqualTo("deliveryMode"));
      try (Connection c = db.dataSource().getConnection();
          ResultSet rs = c.getMetaData().getTables(null, null, "TXMSG_JOURNAL", null)) {
        assertThat(rs.next()).as("the schema was not created").isFalse();
      }
    }
  }

  @Test
  @DatabaseIndependent
  void cdcSettingsAreValidatedNamingTheSetting() {
    TxProducerSettings s = new TxProducerSettings().topics("t").deliveryMode(DeliveryMode.CDC);
    assertThat(s.confirmation()).isEqualTo(DeliveryConfirmation.SEND_OK);
    assertThat(s.cdcFallbackAfter()).isEqualTo(Duration.ofSeconds(60));
    s.validate();
    assertThatThrownBy(() -> s.copy().cdcFallbackAfter(Duration.ofMillis(500)).validate())
        .isInstanceOf(InvalidSettingsException.class)
        .satisfies(
            e ->
                assertThat(((InvalidSettingsException) e).setting()).isEqualTo("cdcFallbackAfter"));
    assertThatThrownBy(() -> s.copy().cdcFallbackAfter(null).validate())
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("cdcFallbackAfter");
    for (DeliveryConfirmation c :
        new DeliveryConfirmation[] {
          DeliveryConfirmation.CONSUMER, DeliveryConfirmation.PROXY_ACK
        }) {
      assertThatThrownBy(() -> s.copy().confirmation(c).validate())
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining("CDC")
          .satisfies(
              e -> assertThat(((InvalidSettingsException) e).setting()).isEqualTo("confirmation"));
    }
    // ctx.publish may send to the store's own topics, as in OUTBOX.
    assertThat(s.publishable("t")).isTrue();
  }
}
