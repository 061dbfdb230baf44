package io.txmsg.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Queueing is a latency that climbs through the run; single slow events are not queueing. */
class QueueingCheckTest {
  @Test
  void aSteadyLatencyIsNotQueueing() {
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      latencies.add(20L + i % 10);
    }
    QueueingCheck.Trend t = QueueingCheck.trend(latencies).orElseThrow();
    assertThat(t.queued()).as(t.toString()).isFalse();
  }

  @Test
  void aLatencyThatGrowsWithEveryEventIsQueueing() {
    // A group that applies 14 events/s of 20 offered: event i waits i × (1/14 - 1/20) s longer.
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      latencies.add(25L + Math.round(i * (1000.0 / 14 - 1000.0 / 20)));
    }
    QueueingCheck.Trend t = QueueingCheck.trend(latencies).orElseThrow();
    assertThat(t.firstFifthP50()).isLessThan(5_000);
    assertThat(t.lastFifthP50()).isGreaterThan(15_000);
    assertThat(t.queued()).isTrue();
  }

  @Test
  void slowEventsFromFaultsAtTheEndAreNotQueueing() {
    // Every tenth event waited for a check-back or a redelivery (seconds); the rest took 30 ms.
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      latencies.add(i % 10 == 0 ? 8_000L : 30L);
    }
    QueueingCheck.Trend t = QueueingCheck.trend(latencies).orElseThrow();
    assertThat(t.lastFifthP50()).isEqualTo(30);
    assertThat(t.queued()).isFalse();
  }

  @Test
  void growthBelowTheFloorIsNotQueueing() {
    // 5 ms → 100 ms is 20-fold but still a fast pipeline, not a queue the user should hear about.
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      latencies.add(i < 50 ? 5L : 100L);
    }
    QueueingCheck.Trend t = QueueingCheck.trend(latencies).orElseThrow();
    assertThat(t.lastFifthP50()).isEqualTo(100);
    assertThat(t.queued()).isFalse();
  }

  @Test
  void tooFewEventsTellNothing() {
    assertThat(QueueingCheck.trend(List.of(1L, 2L, 3L))).isEmpty();
  }
}
