package io.txmsg.reliability;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Appends one result row per scenario, transport and database to target/reliability/results.md. */
final class Report {
  private Report() {}

  static synchronized void row(String scenario, World w, long faults, World.Verdict v)
      throws Exception {
    List<Long> r = new ArrayList<>(w.recoveryMillis);
    Collections.sort(r);
    String recovery =
        r.isEmpty()
            ? "-"
            : String.format(
                Locale.ROOT,
                "%d / %d",
                r.get(r.size() / 2),
                r.get((int) Math.ceil(r.size() * 0.99) - 1));
    String line =
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |%n",
            v.unsettled() == null ? scenario : scenario + " UNSETTLED: " + v.unsettled(),
            w.transport.name().toLowerCase(Locale.ROOT),
            w.kind.id(),
            Scale.isLong() ? "long" : "short",
            v.facts(),
            faults,
            v.lost(),
            v.phantom(),
            v.duplicate(),
            v.stale(),
            v.stuck(),
            v.absorbed(),
            recovery);
    Path dir = Path.of("target", "reliability");
    Files.createDirectories(dir);
    Path file = dir.resolve("results.md");
    if (!Files.exists(file)) {
      Files.writeString(
          file,
          "| scenario | transport | db | scale | facts | faults | lost | phantom | duplicate applied | stale"
              + " | stuck | duplicates absorbed | recovery ms p50 / p99 |\n"
              + "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          StandardCharsets.UTF_8);
    }
    Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    System.out.print("RELIABILITY " + line);
  }
}
