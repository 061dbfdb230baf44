package io.txmsg.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load: {@code threads} threads call the operation back to back, first for the
 * warm-up (not recorded), then for the measured time. Each call's latency is recorded.
 */
final class Load {
  private Load() {}

  /** One operation; {@code id} is unique within the JVM. */
  @FunctionalInterface
  interface Op {
    void run(String id) throws Exception;
  }

  /** The outcome of one measured run. */
  record Result(long ops, long errors, double seconds, double p50Ms, double p99Ms) {
    double perSecond() {
      return ops / seconds;
    }
  }

  private static final AtomicLong IDS = new AtomicLong();

  static String nextId(String prefix) {
    return prefix + "-" + IDS.incrementAndGet();
  }

  static Result run(String prefix, int threads, long warmupMillis, long measureMillis, Op op)
      throws InterruptedException {
    long start = System.nanoTime();
    long measureFrom = start + warmupMillis * 1_000_000;
    long end = measureFrom + measureMillis * 1_000_000;
    List<Stats.Recorder> recorders = new ArrayList<>();
    AtomicLong ops = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(threads);
    long[] lastEnd = new long[threads];
    for (int t = 0; t < threads; t++) {
      Stats.Recorder rec = new Stats.Recorder();
      recorders.add(rec);
      int index = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  while (true) {
                    long t0 = System.nanoTime();
                    if (t0 >= end) {
                      break;
                    }
                    boolean ok = true;
                    try {
                      op.run(nextId(prefix));
                    } catch (Throwable e) {
                      ok = false;
                      firstError.compareAndSet(null, e);
                    }
                    long t1 = System.nanoTime();
                    if (t0 >= measureFrom) {
                      if (ok) {
                        rec.add(t1 - t0);
                        ops.incrementAndGet();
                      } else {
                        errors.incrementAndGet();
                      }
                      lastEnd[index] = t1;
                    }
                  }
                } finally {
                  done.countDown();
                }
              },
              "load-" + prefix + "-" + t);
      th.setDaemon(true);
      th.start();
    }
    done.await();
    long last = end;
    for (long l : lastEnd) {
      last = Math.max(last, l);
    }
    if (firstError.get() != null && errors.get() > 0) {
      System.out.println("    ! " + errors.get() + " errors, first: " + firstError.get());
    }
    long[] sorted = Stats.merge(recorders);
    return new Result(
        ops.get(),
        errors.get(),
        (last - measureFrom) / 1e9,
        Stats.percentileMillis(sorted, 0.50),
        Stats.percentileMillis(sorted, 0.99));
  }

  /** Each result's throughput, in order. */
  static List<Double> perSecond(List<Result> rs) {
    List<Double> out = new ArrayList<>();
    for (Result r : rs) {
      out.add(r.perSecond());
    }
    return out;
  }

  /** Each result's p50 (or p99) latency in ms, in order. */
  static List<Double> latencies(List<Result> rs, boolean p50) {
    List<Double> out = new ArrayList<>();
    for (Result r : rs) {
      out.add(p50 ? r.p50Ms() : r.p99Ms());
    }
    return out;
  }
}
