package io.txmsg.bench;

import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load: {@code n} operations started at a fixed rate, operation i at start + i / rate,
 * whatever the earlier ones are doing (a closed loop instead starts the next call when the last one
 * returns, so its offered load is whatever the slowest part allows, and its latencies are waits in
 * the queues of a saturated machine). The calls run on a pool of {@link #SENDERS} threads; if they
 * are all busy a call starts late, and how late is reported, so a rate the variant cannot sustain
 * shows.
 */
final class OpenLoop {
  /** Threads that start the calls: far more than are in flight at the offered rates. */
  static final int SENDERS = 32;

  private OpenLoop() {}

  /**
   * The outcome: calls that failed (with the first failure), and how late the calls started after
   * their scheduled time (p99 and max, ms).
   */
  record Result(long errors, Exception firstError, double lateP99Ms, double lateMaxMs) {}

  /**
   * Runs {@code n} calls of {@code op} at {@code perSecond}; {@code onError} after each failure.
   */
  static Result run(int n, double perSecond, String idPrefix, Load.Op op, Runnable onError)
      throws InterruptedException {
    AtomicLong errors = new AtomicLong();
    AtomicReference<Exception> firstError = new AtomicReference<>();
    long[] late = new long[n];
    ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
    long start = System.nanoTime();
    double interval = 1e9 / perSecond;
    try {
      for (int i = 0; i < n; i++) {
        long due = start + (long) (i * interval);
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        int slot = i;
        senders.execute(
            () -> {
              late[slot] = Math.max(0, System.nanoTime() - due);
              try {
                op.run(Load.nextId(idPrefix));
              } catch (Exception e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e);
                onError.run();
              }
            });
      }
    } finally {
      senders.shutdown();
      if (!senders.awaitTermination(10, TimeUnit.MINUTES)) {
        senders.shutdownNow();
      }
    }
    Arrays.sort(late);
    return new Result(
        errors.get(),
        firstError.get(),
        Stats.percentileMillis(late, 0.99),
        n == 0 ? Double.NaN : late[n - 1] / 1e6);
  }
}
