package io.txmsg.cdc;

import static io.txmsg.cdc.CdcFixture.LOG_DATABASES;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.cdc.micrometer.CdcRelayMetrics;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQTest;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The relay's Micrometer meters: rows relayed, the lag of the rows it did not send (committed
 * before it started: left to the reconciler), whether it relays, and on PostgreSQL the slot's WAL.
 */
@EmbeddedRocketMQTest
class CdcRelayMetricsTest {
  private final EmbeddedRocketMQ mq;

  CdcRelayMetricsTest(EmbeddedRocketMQ mq) {
    this.mq = mq;
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource(LOG_DATABASES)
  void countsRelayedRowsAndReportsTheLagOfUnsentRowsAndTheSlot(
      TestTransport transport, TestDatabase kind) throws Exception {
    try (CdcFixture f = new CdcFixture(transport, kind, mq)) {
      String topic = f.topic(TopicType.NORMAL);
      f.consume(topic, false);
      // Committed before the relay's first start: it begins at the end of the log, so these stay
      // unsent (the reconciler's, after cdcFallbackAfter) and make the lag.
      for (int i = 0; i < 3; i++) {
        f.insert(topic, "before-" + i, 1, null);
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      CdcRelayMetrics metrics = new CdcRelayMetrics(registry, f.storeId);
      f.closeLater(metrics);
      CdcRelay relay = f.started(f.relay(s -> s).listener(metrics).build());
      metrics.bind(relay, Duration.ofHours(1)); // one read now; the test reads again below

      List<JournalRow> after = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        after.add(f.insert(topic, "after-" + i, 1, null));
      }
      f.awaitSent(after, Duration.ofSeconds(60));
      CdcFixture.await(
          "5 rows counted relayed",
          () -> registry.get(CdcRelayMetrics.RELAYED).counter().count() == 5.0,
          Duration.ofSeconds(10));
      metrics.refresh();

      assertThat(registry.get(CdcRelayMetrics.LAG_RECORDS).tag("store", f.storeId).gauge().value())
          .as("unsent CDC rows of the store")
          .isEqualTo(3.0);
      assertThat(registry.get(CdcRelayMetrics.LAG_SECONDS).gauge().value()).isGreaterThan(0.0);
      assertThat(registry.get(CdcRelayMetrics.RELAYING).gauge().value()).isEqualTo(1.0);
      assertThat(
              registry.get(CdcRelayMetrics.EVENTS).tag("event", "lease_acquired").counter().count())
          .isEqualTo(1.0);
      double slot = registry.get(CdcRelayMetrics.SLOT_LAG_BYTES).gauge().value();
      if (kind == TestDatabase.POSTGRESQL) {
        assertThat(slot).as("WAL retained for the relay's slot").isGreaterThanOrEqualTo(0.0);
        assertThat(relay.lag().slotRetainedBytes()).isNotNull();
      } else {
        assertThat(slot).as("no slot on MariaDB").isEqualTo(-1.0);
        assertThat(relay.lag().slotRetainedBytes()).isNull();
      }
    }
  }
}
