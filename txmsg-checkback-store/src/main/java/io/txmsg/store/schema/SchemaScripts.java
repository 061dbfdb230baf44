package io.txmsg.store.schema;

import io.txmsg.store.Dialect;
import io.txmsg.store.TablePrefix;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shipped schema files and the plan that takes a database from what it holds to {@link
 * SchemaInstaller#VERSION}. The schema is written once, as plain Flyway migrations under {@code
 * io/txmsg/store/flyway/<vendor>/} ({@link #vendor}): the files an application's Flyway (or the
 * shipped Liquibase changelog, which points at the same files) runs are the files this class reads,
 * so no second copy can drift from them.
 *
 * <ul>
 *   <li>{@code V<n>__txmsg_<what>.sql}: version n; the table prefix is the Flyway placeholder
 *       {@value #PLACEHOLDER}. V1 creates the tables; every later version holds only its additive
 *       change. A shipped file never changes, not even a comment: Flyway checksums every line, so
 *       an edited V1 fails every existing install's validation. A change is a new version.
 *   <li>Each file also keeps the {@code ${prefix}schema} version row, so that a database Flyway
 *       migrated passes txmsg's startup check: V1 starts with the {@code ${prefix}schema} table and
 *       its row at 0, and every file ends with the statement moving the row to its version. This
 *       class separates those statements from the version's own: {@link #versionTable} is V1's
 *       first statement (an upgrade from a release before schema versions creates that table on the
 *       way, with the row at the version found), and the row statements themselves are generated
 *       here and must equal the file's, which is checked whenever a version's file is read.
 * </ul>
 *
 * <p>{@code txmsg schema print} shows exactly what {@code apply} runs.
 *
 * <p>The header comments of V1..V4 still call these files copies of per-dialect files under {@code
 * io/txmsg/store/schema/}: those were the migrator's own until this class read these instead, and
 * were removed then. The comments stay as released, for the checksums' sake.
 */
public final class SchemaScripts {
  /** The version row's name in {@code ${prefix}schema}. */
  static final String NAME = "txmsg";

  /** The Flyway placeholder the files write for the table prefix. */
  public static final String PLACEHOLDER = "${txmsg_prefix}";

  /**
   * The class-path resource of the Liquibase changelog that runs these files: per version one
   * changeset running its file (by dbms), then one tagging the history {@code txmsg-V<n>};
   * parameter {@code txmsg_prefix}.
   */
  public static final String LIQUIBASE_CHANGELOG = "io/txmsg/store/liquibase/txmsg-changelog.xml";

  /**
   * The file of each version, V1 first. Flyway derives a migration's description from its file name
   * and compares it on validate, so a shipped name never changes either.
   */
  private static final List<String> FILES =
      List.of(
          "V1__txmsg_base.sql",
          "V2__txmsg_outbox_columns.sql",
          "V3__txmsg_archive_runs.sql",
          "V4__txmsg_cdc_relay.sql",
          "V5__txmsg_instance_heartbeat.sql",
          "V6__txmsg_business_key_index_optional.sql");

  /**
   * The resource of the opt-in journal index on {@code business_key} (schema V6 dropped it from the
   * default schema), relative to {@code io/txmsg/store/}: one statement, idempotent (IF NOT
   * EXISTS), for {@code txmsg schema business-key-index} and for users who put it in a migration of
   * their own. Not under {@code flyway/}, so no Flyway location picks it up by itself.
   */
  static String businessKeyIndexResource(Dialect dialect) {
    return "optional/" + vendor(dialect) + "/journal_business_key_ix.sql";
  }

  /** The statement creating the opt-in business-key index of the journal, prefix filled in. */
  public static String businessKeyIndex(Dialect dialect, String prefix) {
    List<String> statements = read(businessKeyIndexResource(dialect), prefix);
    if (statements.size() != 1) {
      throw new IllegalStateException(
          businessKeyIndexResource(dialect)
              + " holds "
              + statements.size()
              + " statements, not one");
    }
    return statements.get(0);
  }

  static {
    if (FILES.size() != SchemaInstaller.VERSION) {
      throw new ExceptionInInitializerError(
          "SchemaScripts names " + FILES.size() + " files for V" + SchemaInstaller.VERSION);
    }
  }

  private SchemaScripts() {}

  /**
   * The directory name of a dialect's files under {@code io/txmsg/store/flyway/}: Flyway's and
   * Liquibase's name for the database ({@link Dialect#MYSQL}'s files are written for MariaDB).
   */
  public static String vendor(Dialect dialect) {
    return switch (dialect) {
      case H2 -> "h2";
      case MYSQL -> "mariadb";
      case POSTGRESQL -> "postgresql";
    };
  }

  /** The Flyway location of a dialect's files, e.g. {@code classpath:io/txmsg/store/flyway/h2}. */
  public static String flywayLocation(Dialect dialect) {
    return "classpath:io/txmsg/store/flyway/" + vendor(dialect);
  }

  /**
   * The resource holding version {@code version} for a dialect, relative to {@code
   * io/txmsg/store/}.
   */
  public static String resource(Dialect dialect, int version) {
    checkVersion(version);
    return "flyway/" + vendor(dialect) + "/" + FILES.get(version - 1);
  }

  /**
   * The statements of version {@code version}, in order, without the version-row bookkeeping its
   * file also holds (and, for V1, without the version table).
   */
  public static List<String> version(Dialect dialect, String prefix, int version) {
    List<String> all = versionFile(dialect, version);
    return fill(all.subList(version == 1 ? 2 : 0, all.size() - 1), prefix);
  }

  /** The statements creating {@code ${prefix}schema}: the first statement of V1's file. */
  public static List<String> versionTable(Dialect dialect, String prefix) {
    return fill(versionFile(dialect, 1).subList(0, 1), prefix);
  }

  /**
   * A version's file, statements with the placeholder left in, after checking that its version-row
   * statements are where and what this class expects: V1 starts with the {@code ${prefix}schema}
   * table and the row at 0, every file ends with the row moved from the previous version to its
   * own, and no other statement touches that table. A file that breaks this would make {@code txmsg
   * schema apply} and Flyway record different versions.
   */
  private static List<String> versionFile(Dialect dialect, int version) {
    String resource = resource(dialect, version);
    List<String> all = statements(resource);
    int first = version == 1 ? 2 : 0;
    if (all.size() < first + 2) {
      throw new IllegalStateException(resource + " holds " + all.size() + " statements, too few");
    }
    String table = PLACEHOLDER + "schema";
    List<String> problems = new ArrayList<>();
    if (version == 1) {
      if (!all.get(0).startsWith("CREATE TABLE " + table + " (")) {
        problems.add("its first statement must create " + table);
      }
      if (!all.get(1).equals(insertVersion(PLACEHOLDER, 0))) {
        problems.add("its second statement must be: " + insertVersion(PLACEHOLDER, 0));
      }
    }
    String last = updateVersion(PLACEHOLDER, version - 1, version);
    if (!all.get(all.size() - 1).equals(last)) {
      problems.add("its last statement must be: " + last);
    }
    for (String sql : all.subList(first, all.size() - 1)) {
      if (sql.contains(table + " ") || sql.contains(table + "\n")) {
        problems.add("only the version-row statements may name " + table + ": " + sql);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(resource + ": " + String.join("; ", problems));
    }
    return all;
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
              resource(dialect, 1),
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

  private static void checkVersion(int version) {
    if (version < 1 || version > SchemaInstaller.VERSION) {
      throw new IllegalArgumentException(
          "schema versions are 1.." + SchemaInstaller.VERSION + ", not " + version);
    }
  }

  /**
   * A schema file's statements with the prefix filled in. Statements are separated by lines holding
   * only ';' (which Flyway, Liquibase, psql and the mysql client accept too); lines starting with
   * -- are comments.
   */
  static List<String> read(String resource, String prefix) {
    return fill(statements(resource), prefix);
  }

  private static List<String> fill(List<String> statements, String prefix) {
    TablePrefix.validate(prefix);
    return statements.stream().map(sql -> sql.replace(PLACEHOLDER, prefix)).toList();
  }

  /** A file's statements as written, placeholder and all. */
  private static List<String> statements(String resource) {
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
          out.add(sql);
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
