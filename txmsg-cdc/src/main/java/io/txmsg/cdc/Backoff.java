package io.txmsg.cdc;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with ±20% jitter: {@code initial · 2^(attempt-1)}, capped at {@code max}. */
record Backoff(Duration initial, Duration max) {
  /** The wait before try {@code attempt + 1}, after {@code attempt} (≥ 1) failures. */
  long millis(int attempt) {
    long base = initial.toMillis() << Math.min(Math.max(attempt - 1, 0), 30);
    long cap = max.toMillis();
    if (base <= 0 || base > cap) {
      base = cap;
    }
    double jitter = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
    return Math.max(1, (long) (base * jitter));
  }
}
