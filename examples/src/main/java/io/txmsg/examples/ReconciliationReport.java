package io.txmsg.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the demo found in the database once everything settled: key figures and the invariants, each
 * PASS or FAIL. Built by {@link Reconciliation}; tests assert on it directly.
 */
public final class ReconciliationReport {
  /** One invariant. */
  public record Check(String name, boolean pass, String detail) {}

  private final Map<String, String> figures = new LinkedHashMap<>();
  private final List<Check> checks = new ArrayList<>();
  private final List<String> pending = new ArrayList<>();

  void figure(String name, Object value) {
    figures.put(name, String.valueOf(value));
  }

  void check(String name, boolean pass, String detail) {
    checks.add(new Check(name, pass, detail));
  }

  void pending(List<String> stillPending) {
    pending.addAll(stillPending);
  }

  /** Figures by name, in report order. */
  public Map<String, String> figures() {
    return Collections.unmodifiableMap(figures);
  }

  public List<Check> checks() {
    return List.copyOf(checks);
  }

  /** What was still pending when the quiescence wait timed out (empty when it settled). */
  public List<String> pending() {
    return List.copyOf(pending);
  }

  /** True when every invariant holds and nothing was left pending. */
  public boolean allPass() {
    return pending.isEmpty() && !checks.isEmpty() && checks.stream().allMatch(Check::pass);
  }

  /** The process exit code: 0 when {@link #allPass()}, 1 otherwise. */
  public int exitCode() {
    return allPass() ? 0 : 1;
  }

  /** Prints the report. */
  public void print(PrintStream out) {
    out.println();
    out.println("RECONCILIATION (from the database)");
    int width = figures.keySet().stream().mapToInt(String::length).max().orElse(10);
    figures.forEach((k, v) -> out.printf("  %-" + width + "s  %s%n", k, v));
    if (!pending.isEmpty()) {
      out.println();
      out.println("STILL PENDING when the wait timed out");
      pending.forEach(p -> out.println("  " + p));
    }
    out.println();
    out.println("INVARIANTS");
    for (Check c : checks) {
      out.printf("  [%s] %s — %s%n", c.pass() ? "PASS" : "FAIL", c.name(), c.detail());
    }
    out.println();
    out.println(allPass() ? "DEMO PASS" : "DEMO FAIL");
  }
}
