package io.txmsg.bench;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Commit → delivered latency of one round, where either side may be reported first: a CDC commit is
 * taken when {@code execute} returned (no hook runs after a CDC commit), so a delivery that raced
 * it must not be lost. Each event id pairs its commit with its first delivery; redeliveries and
 * events of other rounds are ignored.
 */
final class LatencyPairs {
  private record Mark(boolean commit, long nanos) {}

  private final ConcurrentHashMap<String, Mark> open = new ConcurrentHashMap<>();
  private final long[] lat;
  private final AtomicInteger n = new AtomicInteger();
  final CountDownLatch all;

  LatencyPairs(int count) {
    lat = new long[count];
    all = new CountDownLatch(count);
  }

  void committed(String id, long nanos) {
    mark(id, true, nanos);
  }

  void delivered(String id, long nanos) {
    if (id != null) {
      mark(id, false, nanos);
    }
  }

  private void mark(String id, boolean commit, long nanos) {
    open.compute(
        id,
        (k, v) -> {
          if (v == null) {
            return new Mark(commit, nanos);
          }
          if (v.commit() == commit) {
            return v; // a redelivery before the commit was reported: keep the first
          }
          long d = commit ? v.nanos() - nanos : nanos - v.nanos();
          int i = n.getAndIncrement();
          if (i < lat.length) {
            lat[i] = Math.max(0, d);
            all.countDown();
          }
          return null;
        });
  }

  /** The latencies paired so far, sorted (nanoseconds). */
  long[] latencies() {
    long[] a = Arrays.copyOf(lat, Math.min(n.get(), lat.length));
    Arrays.sort(a);
    return a;
  }
}
