package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetterSelector;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.consume.ReplayRequests;
import io.txmsg.store.consume.ReplayStatus;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.store.tx.StoreTransactions;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The replay worker's pacing, failure threshold and audit, with a scripted replayer. */
class ReplayWorkerTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  @ParameterizedTest
  @MethodSource(DB)
  void stopsPastTheFailureRatioAndPutsTheRestBackToParked(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      Store tx = store(db);
      parkTen(tx);
      request(tx, "req-ratio", 1000, 0, "0.3");
      AtomicInteger calls = new AtomicInteger();
      ReplayWorker worker =
          new ReplayWorker(
              tx.requests(),
              List.of("g"),
              (group, eventId, id) ->
                  calls.incrementAndGet() % 2 == 0
                      ? new ReplayResult(ReplayResult.Status.FAILED, "still broken")
                      : new ReplayResult(ReplayResult.Status.REPLAYED, "applied"),
              new io.txmsg.consumer.micrometer.MicrometerConsumerMetrics(
                  new SimpleMeterRegistry()));
      assertThat(worker.runOnce()).isEqualTo(1);
      ReplayRequestRow r = tx.requests().find("req-ratio");
      assertThat(r.getStatus()).isEqualTo(ReplayStatus.STOPPED);
      assertThat(r.getStoppedReason()).isEqualTo("failure ratio 1/2 above 0.3");
      assertThat(r.getSucceeded()).isEqualTo(1);
      assertThat(r.getFailed()).isEqualTo(1);
      assertThat(r.getFinishedAt()).isNotNull();
      assertThat(calls.get()).isEqualTo(2);
      DeadLetterSelector group = new DeadLetterSelector();
      group.setConsumerGroup("g");
      List<DeadLetterRow> parked =
          tx.transactions().run(c -> tx.requests().selectParked(c, group, 100));
      assertThat(parked).hasSize(10);
      assertThat(worker.runOnce()).isZero(); // a finished request is never run again
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void replaysAtTheRequestedRateInAggregateVersionOrder(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      Store tx = store(db);
      parkTen(tx);
      request(tx, "req-rate", 20, 3, "0.2");
      List<String> order = new ArrayList<>();
      List<Long> times = new ArrayList<>();
      ReplayWorker worker =
          new ReplayWorker(
              tx.requests(),
              List.of("g"),
              (group, eventId, id) -> {
                order.add(eventId);
                times.add(System.nanoTime());
                return new ReplayResult(ReplayResult.Status.REPLAYED, "applied");
              },
              new io.txmsg.consumer.micrometer.MicrometerConsumerMetrics(
                  new SimpleMeterRegistry()));
      long start = System.nanoTime();
      assertThat(worker.runOnce()).isEqualTo(1);
      double seconds = (System.nanoTime() - start) / 1e9;
      ReplayRequestRow r = tx.requests().find("req-rate");
      assertThat(r.getStatus()).isEqualTo(ReplayStatus.DONE);
      assertThat(r.getSucceeded()).isEqualTo(10);
      // 10 events at 20/s: event k starts no earlier than k intervals after the worker began,
      // so the tenth starts at least 0.45 s after this test called it.
      assertThat((times.get(9) - start) / 1e9).isGreaterThanOrEqualTo(0.45);
      assertThat(seconds).isLessThan(30);
      // Aggregate-version order: a1 v1..v5 before a2 v1..v5, whatever the parking order was.
      assertThat(order)
          .containsExactly(
              "a1-1", "a1-2", "a1-3", "a1-4", "a1-5", "a2-1", "a2-2", "a2-3", "a2-4", "a2-5");
    }
  }

  /** The store's operations this test uses. */
  private record Store(
      StoreTransactions transactions, DeadLetters deadLetters, ReplayRequests requests) {}

  private static Store store(DatabaseFixture db) {
    SchemaInstaller.installIfMissing(db.dataSource(), "txmsg_");
    TxmsgStore store = TxmsgStore.detect(db.dataSource(), "txmsg_");
    return new Store(
        new StoreTransactions(db.dataSource(), store),
        new DeadLetters(db.dataSource(), store),
        new ReplayRequests(db.dataSource(), store));
  }

  /** Ten parked messages of group g, parked newest version first. */
  private static void parkTen(Store tx) throws Exception {
    for (int v = 5; v >= 1; v--) {
      for (String agg : List.of("a2", "a1")) {
        DeadLetterRow d = new DeadLetterRow();
        d.setConsumerGroup("g");
        d.setEventId(agg + "-" + v);
        d.setRequestHash("h".repeat(64));
        d.setKind(DeadLetterKind.MESSAGE);
        d.setReason(ParkReason.PERMANENT_ERROR);
        d.setEventType("Paid");
        d.setAggregateType("Order");
        d.setAggregateId(agg);
        d.setAggregateVersion((long) v);
        assertThat(tx.deadLetters().park(d)).isTrue();
      }
    }
  }

  private static void request(Store tx, String id, int rate, int canary, String ratio)
      throws Exception {
    ReplayRequestRow r = new ReplayRequestRow();
    r.setRequestId(id);
    r.setOperator("test");
    r.setReason("test");
    r.setConsumerGroup("g");
    r.setSelector("group=g");
    r.setRatePerSecond(rate);
    r.setCanary(canary);
    r.setMaxFailureRatio(new BigDecimal(ratio));
    r.setStatus(ReplayStatus.REQUESTED);
    r.setSelected(10);
    DeadLetterSelector s = new DeadLetterSelector();
    s.setConsumerGroup("g");
    tx.transactions()
        .run(
            c -> {
              assertThat(tx.requests().markRequested(c, s, id)).isEqualTo(10);
              tx.requests().insert(c, r);
              return null;
            });
  }
}
