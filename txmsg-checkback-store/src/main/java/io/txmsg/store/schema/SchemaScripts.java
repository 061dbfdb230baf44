package io.txmsg.store.schema;

import io.txmsg.store.Dialect;
import io.txmsg.store.TablePrefix;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shipped schema files ({@code io/txmsg/store/schema/}) and the plan that takes a database from
 * what it holds to {@link SchemaInstaller#VERSION}:
 *
 * <ul>
 *   <li>{@code <dialect>-V<n>__txmsg.sql}: version n. V1 creates the tables; every later version
 *       holds only its additive change. A shipped file never changes: databases ran it.
 *   <li>{@code <dialect>-version-table.sql}: the {@code ${prefix}schema} table, outside the
 *       versions: an install creates it first, an upgrade from a release before schema versions
 *       creates it on the way.
 * </ul>
 *
 * <p>The statements that write the version row are generated here (they are the same on every
 * database), so that {@code txmsg schema print} shows exactly what {@code apply} runs.
 */
public final class SchemaScripts {
  /** The version row's name in {@code ${prefix}schema}. */
  static final String NAME = "txmsg";

  private SchemaScripts() {}

  /**
   * The resource holding version {@code version} for a dialect, relative to {@code
   * io/txmsg/store/}.
   */
  public static String resource(Dialect dialect, int version) {
    return "schema/" + dialect.id() + "-V" + version + "__txmsg.sql";
  }

  /** The statements of version {@code version}'s file, in order. */
  public static List<String> version(Dialect dialect, String prefix, int version) {
    if (version < 1 || version > SchemaInstaller.VERSION) {
      throw new IllegalArgumentException(
          "schema versions are 1.." + SchemaInstaller.VERSION + ", not " + version);
    }
    return read(resource(dialect, version), prefix);
  }

  /** The statements creating {@code ${prefix}schema}. */
  public static List<String> versionTable(Dialect dialect, String prefix) {
    return read(versionTableResource(dialect), prefix);
  }

  /**
   * The steps from {@code installed} to {@link SchemaInstaller#VERSION}: first the version table
   * and its row when either is missing, the row saying the version found (0 for an empty database,
   * so that an install interrupted halfway through V1 is recognised as one); then each later
   * version's statements followed by the statement recording it. Empty when the database is
   * current.
   *
   * @throws SchemaVersionException when the database holds a version this release does not know
   */
  public static SchemaPlan plan(Dialect dialect, String prefix, SchemaStatus installed) {
    TablePrefix.validate(prefix);
    if (installed.state() == SchemaStatus.State.NEWER) {
      throw new SchemaVersionException(installed);
    }
    List<SchemaPlan.Step> steps = new ArrayList<>();
    if (installed.state() == SchemaStatus.State.CURRENT) {
      return new SchemaPlan(
          dialect, prefix, installed.installed(), SchemaInstaller.VERSION, List.of());
    }
    if (!installed.versionTable() || !installed.versionRow()) {
      steps.add(
          new SchemaPlan.Step(
              "the schema-version table " + prefix + "schema",
              versionTableResource(dialect),
              installed.versionTable() ? List.of() : versionTable(dialect, prefix),
              insertVersion(prefix, installed.installed())));
    }
    for (int v = installed.installed() + 1; v <= SchemaInstaller.VERSION; v++) {
      steps.add(
          new SchemaPlan.Step(
              "V" + v,
              resource(dialect, v),
              version(dialect, prefix, v),
              updateVersion(prefix, v - 1, v)));
    }
    return new SchemaPlan(
        dialect, prefix, installed.installed(), SchemaInstaller.VERSION, List.copyOf(steps));
  }

  /** Reads the version row; no row gives null. */
  static String selectVersion(String prefix) {
    return "SELECT version FROM " + prefix + "schema WHERE name = '" + NAME + "'";
  }

  // LOCALTIMESTAMP: the same on all three databases (applied_at is informational; MariaDB gives
  // whole seconds here).
  private static String insertVersion(String prefix, int version) {
    return "INSERT INTO "
        + prefix
        + "schema (name, version, applied_at) VALUES ('"
        + NAME
        + "', "
        + version
        + ", LOCALTIMESTAMP)";
  }

  /** Conditional on the previous version: 0 rows means someone else changed it meanwhile. */
  private static String updateVersion(String prefix, int from, int to) {
    return "UPDATE "
        + prefix
        + "schema SET version = "
        + to
        + ", applied_at = LOCALTIMESTAMP WHERE name = '"
        + NAME
        + "' AND version = "
        + from;
  }

  private static String versionTableResource(Dialect dialect) {
    return "schema/" + dialect.id() + "-version-table.sql";
  }

  /**
   * A schema file's statements with the prefix filled in. Statements are separated by lines holding
   * only ';' (which psql and the mysql client accept too); lines starting with -- are comments.
   */
  static List<String> read(String resource, String prefix) {
    TablePrefix.validate(prefix);
    String text;
    try (InputStream in = SchemaScripts.class.getResourceAsStream("/io/txmsg/store/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing: " + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      if (line.strip().equals(";")) {
        String sql = current.toString().strip();
        if (!sql.isEmpty()) {
          out.add(sql.replace("${prefix}", prefix));
        }
        current.setLength(0);
      } else if (!line.strip().startsWith("--")) {
        current.append(line).append('\n');
      }
    }
    if (!current.toString().isBlank()) {
      throw new IllegalStateException(resource + " ends without ';' after its last statement");
    }
    return List.copyOf(out);
  }
}
