package io.txmsg.store.schema;

import io.txmsg.store.Dialect;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements that take one database (one dialect and prefix) from version {@code from} to
 * {@code to}, in order: what {@code txmsg schema print} shows and {@link SchemaMigrator#apply}
 * runs.
 *
 * @param from the version found (0: nothing installed)
 * @param to the version this release installs
 * @param steps empty when the database is current
 */
public record SchemaPlan(Dialect dialect, String prefix, int from, int to, List<Step> steps) {
  /**
   * One step: a schema file's statements, then the statement that records the version (null for the
   * version table itself).
   */
  public record Step(String title, String resource, List<String> statements, String recordVersion) {
    /** Everything the step runs, recording statement last. */
    public List<String> all() {
      List<String> out = new ArrayList<>(statements);
      if (recordVersion != null) {
        out.add(recordVersion);
      }
      return out;
    }
  }

  public boolean isEmpty() {
    return steps.isEmpty();
  }

  /** Every statement in order. */
  public List<String> statements() {
    return steps.stream().flatMap(s -> s.all().stream()).toList();
  }

  /**
   * The plan as a script: each statement followed by a line holding only ';', which psql and the
   * mysql client run as they are.
   */
  public String render() {
    StringBuilder b = new StringBuilder();
    b.append("-- txmsg schema for ")
        .append(dialect.id())
        .append(", prefix ")
        .append(prefix)
        .append(": ")
        .append(from == 0 ? "install" : "V" + from)
        .append(" -> V")
        .append(to)
        .append('\n');
    if (steps.isEmpty()) {
      return b.append("-- nothing to do: the schema is at V").append(to).append('\n').toString();
    }
    b.append(
            "-- Each statement commits by itself (DDL does on MariaDB and H2); run them in order.\n")
        .append(
            "-- If a run stops halfway, run the rest: \"already exists\" means that step ran.\n");
    for (Step step : steps) {
      b.append("\n-- ").append(step.title()).append(" (io/txmsg/store/").append(step.resource());
      b.append(")\n");
      for (String sql : step.all()) {
        b.append(sql).append("\n;\n");
      }
    }
    return b.toString();
  }
}
