package io.txmsg.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The Markdown of docs/benchmarks.md, built section by section. */
final class Report {
  private final StringBuilder md = new StringBuilder();
  private final List<String> summary = new ArrayList<>();

  Report h2(String title) {
    md.append("\n## ").append(title).append("\n\n");
    return this;
  }

  Report h3(String title) {
    md.append("\n### ").append(title).append("\n\n");
    return this;
  }

  Report p(String text) {
    md.append(text).append("\n\n");
    return this;
  }

  Report table(String... header) {
    md.append("| ").append(String.join(" | ", header)).append(" |\n|");
    for (int i = 0; i < header.length; i++) {
      md.append("---|");
    }
    md.append("\n");
    return this;
  }

  Report row(Object... cells) {
    md.append("|");
    for (Object c : cells) {
      md.append(" ").append(c).append(" |");
    }
    md.append("\n");
    return this;
  }

  Report end() {
    md.append("\n");
    return this;
  }

  /**
   * A line of the targets summary: at least {@code threshold}, judged on the median of the paired
   * per-round ratios; the spread is shown so a verdict that one round would flip is visible.
   */
  void target(String goal, List<Double> ratios, double threshold, String detail) {
    line(goal, ratios, "≥ " + ratio(threshold), Stats.median(ratios) >= threshold, detail);
  }

  /** A target where lower is better. */
  void targetAtMost(String goal, List<Double> ratios, double threshold, String detail) {
    line(goal, ratios, "≤ " + ratio(threshold), Stats.median(ratios) <= threshold, detail);
  }

  /** A target whose subject does not exist yet (a transport or mode not built). */
  void notBuilt(String goal, String threshold) {
    summary.add("| " + goal + " | – | " + threshold + " | not built yet | |");
  }

  /** A target whose variants were not selected in this run. */
  void notRun(String goal, String threshold) {
    summary.add("| " + goal + " | – | " + threshold + " | not run in this run | |");
  }

  /** A target that cannot be measured on this run's database; {@code why} says why. */
  void notApplicable(String goal, String threshold, String why) {
    summary.add("| " + goal + " | – | " + threshold + " | " + why + " | |");
  }

  private void line(String goal, List<Double> ratios, String goalText, boolean met, String detail) {
    double m = Stats.median(ratios);
    String verdict = Double.isNaN(m) ? "n/a" : met ? "PASS" : "**MISS**";
    String measured = Double.isNaN(m) ? "–" : Stats.spread(ratios);
    summary.add(
        "| " + goal + " | " + measured + " | " + goalText + " | " + verdict + " | " + detail
            + " |");
  }

  String summaryTable() {
    StringBuilder s = new StringBuilder();
    s.append(
        "| target | measured: median (min–max) of per-round ratios | goal | verdict | detail |\n"
            + "|---|---|---|---|---|\n");
    for (String l : summary) {
      s.append(l).append("\n");
    }
    return s.toString();
  }

  String body() {
    return md.toString();
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /** A count with thousands separators: 10,000,000. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String ms(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    return v >= 10
        ? String.format(Locale.ROOT, "%.1f", v)
        : v >= 0.1 ? String.format(Locale.ROOT, "%.2f", v) : String.format(Locale.ROOT, "%.3f", v);
  }

  static String ratio(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
  }
}
