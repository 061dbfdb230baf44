package io.txmsg.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * The order the variants of a section run in, shuffled anew for every round (and every point of a
 * round), so that no variant always runs right after another (whose backlog, garbage or warm caches
 * it would inherit) or always first. Seeded: the run's seed, the section, the round and the point
 * give the same order again, so a run can be repeated with the seed its report prints.
 */
final class VariantOrder {
  private final long seed;

  /** Every order used, in the order they were drawn, for the report. */
  private final List<String> drawn = new ArrayList<>();

  VariantOrder(long seed) {
    this.seed = seed;
  }

  long seed() {
    return seed;
  }

  /**
   * The variants of {@code section} for round {@code round} at {@code point} (e.g. the producer's
   * concurrency; 0 where a section has one point), shuffled; {@code name} gives the short name the
   * report lists them by.
   */
  List<String> shuffle(
      String section, int round, int point, List<String> variants, Function<String, String> name) {
    List<String> order = new ArrayList<>(variants);
    long mixed = seed;
    for (long x : new long[] {section.hashCode(), round, point}) {
      mixed = mixed * 0x9E3779B97F4A7C15L + x;
    }
    Collections.shuffle(order, new Random(mixed));
    List<String> keys = new ArrayList<>();
    for (String v : order) {
      keys.add(name.apply(v));
    }
    drawn.add(
        section
            + " round "
            + round
            + (point == 0 ? "" : " c=" + point)
            + ": "
            + String.join(", ", keys));
    return order;
  }

  /** The orders drawn for {@code section}, one line each. */
  List<String> drawn(String section) {
    List<String> out = new ArrayList<>();
    for (String d : drawn) {
      if (d.startsWith(section + " ")) {
        out.add(d.substring(section.length() + 1));
      }
    }
    return out;
  }
}
