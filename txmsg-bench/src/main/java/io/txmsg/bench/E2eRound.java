package io.txmsg.bench;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/** One txmsg end-to-end round: commit → applied latency of each event, and the last applied. */
final class E2eRound {
  final CountDownLatch all;
  final AtomicLong last = new AtomicLong();
  private final long[] lat;
  private final AtomicLong n = new AtomicLong();

  E2eRound(int count) {
    all = new CountDownLatch(count);
    lat = new long[count];
  }

  void handled(String id, long now) {
    Long committed = BenchMain.COMMITTED_AT.remove(id);
    if (committed == null) {
      return;
    }
    int i = (int) n.getAndIncrement();
    if (i < lat.length) {
      lat[i] = now - committed;
    }
    last.accumulateAndGet(now, Math::max);
    all.countDown();
  }

  long count() {
    return Math.min(n.get(), lat.length);
  }

  long[] latencies() {
    long[] a = Arrays.copyOf(lat, (int) count());
    Arrays.sort(a);
    return a;
  }
}
