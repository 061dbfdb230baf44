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

  /**
   * Paired ratios: {@code num[i] / den[i]} for each round i both measured. Pairing within a round
   * cancels most of the machine's drift (CI jobs on the same cores), which a ratio of two medians
   * taken from different rounds does not.
   */
  static List<Double> ratios(List<Double> num, List<Double> den) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < Math.min(num.size(), den.size()); i++) {
      out.add(num.get(i) / den.get(i));
    }
    return out;
  }

  static double min(List<Double> v) {
    return v.stream()
        .mapToDouble(Double::doubleValue)
        .filter(x -> !Double.isNaN(x))
        .min()
        .orElse(Double.NaN);
  }

  static double max(List<Double> v) {
    return v.stream()
        .mapToDouble(Double::doubleValue)
        .filter(x -> !Double.isNaN(x))
        .max()
        .orElse(Double.NaN);
  }

  /** "0.52 (0.48–0.57)": the median of per-round ratios and their spread. */
  static String spread(List<Double> ratios) {
    return Report.ratio(median(ratios))
        + " ("
        + Report.ratio(min(ratios))
        + "–"
        + Report.ratio(max(ratios))
        + ")";
  }

  /**
   * The spread of the paired ratios {@code v / base} as the reports print it; "–" when either side
   * has no values.
   */
  static String ratioSpread(List<Double> v, List<Double> base) {
    return base.isEmpty() || v.isEmpty() ? "–" : spread(ratios(v, base));
  }
}
