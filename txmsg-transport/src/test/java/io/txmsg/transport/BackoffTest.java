package io.txmsg.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final Backoff EXACT =
      Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(1000)).withoutJitter();

  @Test
  void doublesFromInitialPerFailure() {
    assertThat(EXACT.millis(1)).isEqualTo(100);
    assertThat(EXACT.millis(2)).isEqualTo(200);
    assertThat(EXACT.millis(3)).isEqualTo(400);
    assertThat(EXACT.millis(4)).isEqualTo(800);
  }

  @Test
  void isCappedAtMaxAndNeverOverflows() {
    assertThat(EXACT.millis(5)).isEqualTo(1000);
    assertThat(EXACT.millis(31)).isEqualTo(1000);
    assertThat(EXACT.millis(Integer.MAX_VALUE)).isEqualTo(1000);
    Backoff hours = Backoff.exponential(Duration.ofHours(1), Duration.ofDays(3650)).withoutJitter();
    assertThat(hours.millis(Integer.MAX_VALUE))
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofDays(3650).toMillis());
  }

  @Test
  void noFailureYetWaitsTheInitial() {
    assertThat(EXACT.millis(0)).isEqualTo(100);
    assertThat(EXACT.millis(-3)).isEqualTo(100);
  }

  @Test
  void jitterStaysWithinTwentyPercentOfTheSchedule() {
    Backoff b = Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(1000));
    long lowest = Long.MAX_VALUE;
    long highest = Long.MIN_VALUE;
    for (int i = 0; i < 200; i++) {
      assertThat(b.millis(1)).isBetween(80L, 120L);
      assertThat(b.millis(3)).isBetween(320L, 480L);
      long capped = b.millis(40);
      assertThat(capped).isBetween(800L, 1200L);
      lowest = Math.min(lowest, capped);
      highest = Math.max(highest, capped);
    }
    // Jitter is applied: 200 draws of a uniform factor are not all equal.
    assertThat(highest).isGreaterThan(lowest);
  }

  @Test
  void neverWaitsLessThanOneMillisecond() {
    Backoff tiny = Backoff.exponential(Duration.ofNanos(1), Duration.ofNanos(1));
    assertThat(tiny.millis(1)).isEqualTo(1);
  }

  @Test
  void rejectsAnInitialThatIsNotPositive() {
    assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initial");
  }

  @Test
  void rejectsAMaxBelowInitial() {
    assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max");
  }
}
