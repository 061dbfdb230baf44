package io.txmsg.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one retry schedule of txmsg: the wait after the n-th consecutive failure is {@code initial ·
 * 2^(n-1)}, capped at {@code max}, then (with jitter) multiplied by a random factor in [0.8, 1.2)
 * so that many instances failing at the same moment do not retry in lockstep. Used by the CDC
 * relay's sends and restarts, the command dispatcher, the dead-letter drain and the leased
 * delivery's retry delay ({@link SubscriptionSpec.Lease#retryDelay}); each keeps its own {@code
 * initial} and {@code max}.
 *
 * @param initial the wait after the first failure; positive
 * @param max the cap of the doubling; not below {@code initial}
 * @param jitter whether the ±20 % random factor is applied (after the cap: a jittered wait may
 *     exceed {@code max} by up to 20 %)
 */
public record Backoff(Duration initial, Duration max, boolean jitter) {
  /** Shifts beyond this would overflow a long for any positive initial wait. */
  private static final int MAX_SHIFT = 30;

  /**
   * @throws IllegalArgumentException naming the field: {@code initial} not positive, or {@code max}
   *     below {@code initial}
   */
  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial must be positive, was " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "max must not be below initial (" + initial + "), was " + max);
    }
  }

  /** Doubling from {@code initial} to {@code max}, with ±20 % jitter. */
  public static Backoff exponential(Duration initial, Duration max) {
    return new Backoff(initial, max, true);
  }

  /** The same schedule without the random factor: the exact doubling, capped at {@code max}. */
  public Backoff withoutJitter() {
    return new Backoff(initial, max, false);
  }

  /**
   * The wait in milliseconds before the next try after {@code failures} consecutive failures: at
   * least 1. Zero or fewer failures count as one.
   */
  public long millis(int failures) {
    long base = initial.toMillis() << Math.min(Math.max(failures - 1, 0), MAX_SHIFT);
    long cap = max.toMillis();
    if (base <= 0 || base > cap) {
      base = cap;
    }
    if (jitter) {
      base = (long) (base * (0.8 + ThreadLocalRandom.current().nextDouble() * 0.4));
    }
    return Math.max(1, base);
  }
}
