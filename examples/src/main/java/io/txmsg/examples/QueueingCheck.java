package io.txmsg.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tells a consumer group's own latency from queueing. When the demo offers more than a group
 * sustains, its backlog grows for as long as payments arrive, and each event waits longer than the
 * one before: the commit→handler latency then measures the queue, not the pipeline. The signature
 * is a latency that climbs through the run, so this compares the median latency of the first and
 * the last fifth of the group's applications (in the order they were applied).
 *
 * <p>A fault delays single events (a slow local transaction, a check-back, a redelivery); those
 * move a fifth's median little, so they do not read as queueing. A real overload moves it by orders
 * of magnitude.
 */
final class QueueingCheck {
  /** The last fifth's median must exceed the first fifth's by this factor... */
  static final double GROWTH = 4.0;

  /** ...and exceed this many milliseconds: below it, any growth is noise on a fast pipeline. */
  static final long FLOOR_MS = 500;

  /** Fewer applications than this tell nothing about a trend. */
  static final int MIN_EVENTS = 25;

  /** A group's latency trend: median of the first and of the last fifth, in ms. */
  record Trend(long firstFifthP50, long lastFifthP50) {
    boolean queued() {
      return lastFifthP50 > FLOOR_MS && lastFifthP50 > GROWTH * Math.max(1, firstFifthP50);
    }
  }

  private QueueingCheck() {}

  /**
   * The trend of latencies listed in the order they were applied, or empty when there are too few
   * to tell.
   */
  static Optional<Trend> trend(List<Long> latenciesInAppliedOrder) {
    int n = latenciesInAppliedOrder.size();
    if (n < MIN_EVENTS) {
      return Optional.empty();
    }
    int fifth = n / 5;
    return Optional.of(
        new Trend(
            median(latenciesInAppliedOrder.subList(0, fifth)),
            median(latenciesInAppliedOrder.subList(n - fifth, n))));
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get((sorted.size() - 1) / 2);
  }
}
