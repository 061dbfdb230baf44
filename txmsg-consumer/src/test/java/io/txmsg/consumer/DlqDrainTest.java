package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.api.PayloadHashes;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.FaultInjectingDataSource;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.Verdict;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The %DLQ% drain when the database is away: a dead-lettered message carries its exhausted retry
 * count, so handing it back to the broker would move it to the drain group's own dead-letter queue.
 * The drain keeps trying to park it instead, and acknowledges only once the dead letter is stored.
 */
@DatabaseIndependent
class DlqDrainTest {
  private static final String GROUP = "points";

  @Test
  void aParkThatFailsWhileTheDatabaseIsAwayIsRetriedUntilTheDeadLetterIsStored() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      TxmsgStore store = SchemaMigrator.open(db.dataSource(), "txmsg_", true);
      FaultInjectingDataSource ds = new FaultInjectingDataSource(db.dataSource());
      List<ConsumeOutcome> outcomes = new CopyOnWriteArrayList<>();
      DlqDrain drain = drain(ds, store, outcomes, Duration.ofSeconds(60));
      ScheduledExecutorService back = Executors.newSingleThreadScheduledExecutor();
      try {
        ds.down(true);
        back.schedule(() -> ds.down(false), 1500, TimeUnit.MILLISECONDS);

        long start = System.nanoTime();
        Verdict v = drain.onMessage(deadLettered("e1"));

        assertThat(v).isEqualTo(Verdict.ACK);
        // it did not return before the database came back
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .isGreaterThanOrEqualTo(Duration.ofMillis(1400));
        assertThat(outcomes).containsExactly(ConsumeOutcome.PARKED);
        assertThat(parkedReason(db, "e1")).isEqualTo("BROKER_DLQ");
      } finally {
        back.shutdownNow();
      }
    }
  }

  @Test
  void afterItsPatienceTheDrainHandsTheMessageBackInsteadOfAcknowledgingIt() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      TxmsgStore store = SchemaMigrator.open(db.dataSource(), "txmsg_", true);
      FaultInjectingDataSource ds = new FaultInjectingDataSource(db.dataSource());
      List<ConsumeOutcome> outcomes = new CopyOnWriteArrayList<>();
      DlqDrain drain = drain(ds, store, outcomes, Duration.ofMillis(1200));
      ds.down(true);

      Verdict v = drain.onMessage(deadLettered("e2"));

      assertThat(v).isEqualTo(Verdict.RETRY);
      assertThat(outcomes).containsExactly(ConsumeOutcome.RETRY);
      ds.down(false);
      assertThat(parkedReason(db, "e2")).isNull();
    }
  }

  @Test
  void aClosedDrainStopsRetrying() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      TxmsgStore store = SchemaMigrator.open(db.dataSource(), "txmsg_", true);
      FaultInjectingDataSource ds = new FaultInjectingDataSource(db.dataSource());
      DlqDrain drain = drain(ds, store, new CopyOnWriteArrayList<>(), Duration.ofMinutes(10));
      ds.down(true);
      ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor();
      try {
        closer.schedule(
            () -> {
              drain.close();
              return null;
            },
            800,
            TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        assertThat(drain.onMessage(deadLettered("e3"))).isEqualTo(Verdict.RETRY);
        // back well before the ten minutes of patience: at the next backoff step after close
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
      } finally {
        closer.shutdownNow();
      }
    }
  }

  private static DlqDrain drain(
      FaultInjectingDataSource ds,
      TxmsgStore store,
      List<ConsumeOutcome> outcomes,
      Duration patience) {
    ConsumeListener listener = (group, type, id, outcome) -> outcomes.add(outcome);
    return new DlqDrain(
        GROUP,
        new Parking(new ConsumeLog(ds, store), new DeadLetters(ds, store), listener),
        listener,
        patience);
  }

  /** What the broker delivers from %DLQ%points: the envelope, after its last attempt. */
  private static InboundMessage deadLettered(String eventId) {
    byte[] payload = "{\"amount\":5}".getBytes(StandardCharsets.UTF_8);
    JournalRow r = new JournalRow();
    r.setEventId(eventId);
    r.setAttemptId(eventId + "-a");
    r.setStoreId("s");
    r.setAggregateType("Payment");
    r.setAggregateId("p-" + eventId);
    r.setAggregateVersion(1);
    r.setEventType("PaymentSucceeded");
    r.setEventVersion(1);
    r.setDestination("pay");
    r.setPayload(payload);
    r.setPayloadHash(
        PayloadHashes.compute(
            eventId, "PaymentSucceeded", 1, "Payment", "p-" + eventId, 1, payload));
    r.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    OutboundMessage m = EnvelopeCodec.encode(r);
    return new InboundMessage(
        "%DLQ%" + GROUP, "m-" + eventId, m.properties(), m.body(), 17, Instant.now());
  }

  private static String parkedReason(DatabaseFixture db, String eventId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT reason FROM txmsg_dead_letter WHERE consumer_group = ? AND event_id = ?"
                    + " AND status = 'PARKED'")) {
      ps.setString(1, GROUP);
      ps.setString(2, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
