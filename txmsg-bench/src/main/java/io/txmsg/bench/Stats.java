package io.txmsg.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Percentiles of recorded latencies and medians of repeated figures. */
final class Stats {
  private Stats() {}

  /** A growable array of nanosecond latencies, one per thread (no synchronisation). */
  static final class Recorder {
    private long[] values = new long[4096];
    private int size;

    void add(long nanos) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = nanos;
    }

    int size() {
      return size;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  /** Merges recorders and sorts the result. */
  static long[] merge(List<Recorder> recorders) {
    int n = 0;
    for (Recorder r : recorders) {
      n += r.size();
    }
    long[] all = new long[n];
    int at = 0;
    for (Recorder r : recorders) {
      long[] a = r.toArray();
      System.arraycopy(a, 0, all, at, a.length);
      at += a.length;
    }
    Arrays.sort(all);
    return all;
  }

  /** The q-quantile (0..1) of sorted values, in milliseconds; NaN when empty. */
  static double percentileMillis(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  static double median(List<Double> values) {
    List<Double> s = new ArrayList<>();
    for (Double v : values) {
      if (v != null && !v.isNaN()) {
        s.add(v);
      }
    }
    if (s.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
