package io.txmsg.store.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.txmsg.store.Dialect;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The three dialects' schema files (the version table, V1, V2, ...) define the same tables, the
 * same columns per table (in the same order, which the archive's column-list copies do not need but
 * a reader of the files expects) and the same indexes and named constraints, version by version.
 * Types legitimately differ per database and are not compared.
 *
 * <p>The file-level check parses all files and runs in every build; the database-level check
 * installs the schema into each enabled test database and reads it back through {@link
 * DatabaseMetaData}, so a statement the parser reads differently from the database is caught too.
 */
class SchemaParityTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = "txmsg_";

  private static final Pattern CREATE_TABLE =
      Pattern.compile("(?is)CREATE\\s+TABLE\\s+(\\w+)\\s*\\((.*)\\)\\s*");
  private static final Pattern CREATE_INDEX =
      Pattern.compile(
          "(?is)CREATE\\s+(UNIQUE\\s+)?INDEX\\s+(\\w+)\\s+ON\\s+(\\w+)\\s*\\((.*)\\)\\s*");
  private static final Pattern CONSTRAINT =
      Pattern.compile("(?i)CONSTRAINT\\s+(\\w+)\\s+(PRIMARY\\s+KEY|UNIQUE)\\s*\\(([^)]*)\\)");
  private static final Pattern COLUMN = Pattern.compile("(\\w+)\\s+\\S.*");
  private static final Pattern DROP_INDEX =
      Pattern.compile("(?is)DROP\\s+INDEX\\s+(?:IF\\s+EXISTS\\s+)?(\\w+)(?:\\s+ON\\s+(\\w+))?\\s*");
  private static final Pattern ADD_COLUMN =
      Pattern.compile("(?is)ALTER\\s+TABLE\\s+(\\w+)\\s+ADD\\s+COLUMN\\s+(\\w+)\\s+\\S.*");

  /**
   * One schema file, reduced to what must be identical between the databases; {@code dropped}: the
   * indexes its DROP INDEX statements name (V6 drops the journal's business-key index).
   */
  record Schema(
      Map<String, List<String>> columns,
      Map<String, String> indexes,
      Map<String, String> constraints,
      Set<String> dropped) {}

  /** Every schema file of a dialect in install order: the version table, V1, V2, ... */
  static List<String> ddl(Dialect d) {
    List<String> out = new ArrayList<>(SchemaScripts.versionTable(d, PREFIX));
    for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
      out.addAll(SchemaScripts.version(d, PREFIX, v));
    }
    return out;
  }

  @Test
  @DatabaseIndependent
  void theThreeDialectsFilesDefineTheSameTablesColumnsAndIndexes() {
    Map<Dialect, Schema> schemas = new EnumMap<>(Dialect.class);
    for (Dialect d : Dialect.values()) {
      schemas.put(d, parse(ddl(d)));
    }
    Schema reference = schemas.get(Dialect.H2);
    // Guards the parser itself: an empty parse would make every comparison pass.
    assertThat(reference.columns()).hasSize(16);
    assertThat(reference.columns().get(PREFIX + "journal"))
        .contains("event_id", "status")
        .endsWith("publish_mode", "message_group", "instance_id");
    assertThat(reference.columns().get(PREFIX + "journal_archive"))
        .endsWith("archived_at", "publish_mode", "message_group", "instance_id");
    assertThat(reference.columns().get(PREFIX + "schema"))
        .containsExactly("name", "version", "applied_at");
    assertThat(reference.indexes()).containsKey(PREFIX + "journal_due_ix");
    assertThat(reference.dropped()).containsExactly(PREFIX + "journal_business_key_ix");
    assertThat(reference.indexes()).doesNotContainKey(PREFIX + "journal_business_key_ix");
    assertThat(reference.constraints()).containsKey(PREFIX + "command_seq_uk");
    for (Dialect d : Dialect.values()) {
      Schema s = schemas.get(d);
      assertThat(s.columns().keySet()).as(d + " tables").isEqualTo(reference.columns().keySet());
      for (String table : reference.columns().keySet()) {
        assertThat(s.columns().get(table))
            .as(d + " columns of " + table)
            .containsExactlyElementsOf(reference.columns().get(table));
      }
      assertThat(s.indexes()).as(d + " indexes").isEqualTo(reference.indexes());
      assertThat(s.constraints()).as(d + " named constraints").isEqualTo(reference.constraints());
    }
  }

  /** Each version taken alone is the same change on every dialect (V2 adds the same columns). */
  @Test
  @DatabaseIndependent
  void eachVersionChangesTheSameThingsOnEveryDialect() {
    for (int v = 1; v <= SchemaInstaller.VERSION; v++) {
      Schema reference = parse(SchemaScripts.version(Dialect.H2, PREFIX, v));
      assertThat(reference.columns().isEmpty() && reference.dropped().isEmpty())
          .as("V" + v + " parsed to nothing")
          .isFalse();
      for (Dialect d : Dialect.values()) {
        assertThat(parse(SchemaScripts.version(d, PREFIX, v)))
            .as(d + " V" + v)
            .isEqualTo(reference);
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void theInstalledSchemaMatchesTheFiles(TestDatabase kind) throws Exception {
    Schema expected = parse(ddl(Dialect.H2));
    try (DatabaseFixture db = kind.open();
        Connection c = db.dataSource().getConnection()) {
      SchemaInstaller.install(c, Dialect.detect(c), PREFIX);
      DatabaseMetaData md = c.getMetaData();
      Map<String, List<String>> columns = new TreeMap<>();
      try (ResultSet rs =
          md.getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
        while (rs.next()) {
          String table = rs.getString("TABLE_NAME");
          if (lower(table).startsWith(PREFIX)) {
            columns.put(lower(table), columnsOf(md, c, table));
          }
        }
      }
      assertThat(columns).as(kind + " tables and columns").isEqualTo(expected.columns());

      Set<String> indexNames = new TreeSet<>();
      for (String table : columns.keySet()) {
        String stored = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
        try (ResultSet rs = md.getIndexInfo(c.getCatalog(), c.getSchema(), stored, false, false)) {
          while (rs.next()) {
            String name = rs.getString("INDEX_NAME");
            if (name != null) {
              indexNames.add(lower(name));
            }
          }
        }
      }
      // Primary-key and unique-constraint index names are the database's own (PRIMARY,
      // ..._INDEX_x);
      // the names the files give with CREATE INDEX must all be there.
      assertThat(indexNames).as(kind + " indexes").containsAll(expected.indexes().keySet());
      assertThat(indexNames)
          .as(kind + " dropped indexes")
          .doesNotContainAnyElementsOf(expected.dropped());
    }
  }

  private static List<String> columnsOf(DatabaseMetaData md, Connection c, String table)
      throws Exception {
    Map<Integer, String> byPosition = new TreeMap<>();
    try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), table, "%")) {
      while (rs.next()) {
        byPosition.put(rs.getInt("ORDINAL_POSITION"), lower(rs.getString("COLUMN_NAME")));
      }
    }
    return new ArrayList<>(byPosition.values());
  }

  /**
   * Reads CREATE TABLE (columns, named PRIMARY KEY / UNIQUE constraints), ALTER TABLE ... ADD
   * COLUMN, CREATE INDEX (name → table and columns) and DROP INDEX; any other statement fails the
   * test rather than being skipped silently.
   */
  static Schema parse(List<String> statements) {
    Map<String, List<String>> columns = new TreeMap<>();
    Map<String, String> indexes = new TreeMap<>();
    Map<String, String> constraints = new TreeMap<>();
    Set<String> dropped = new TreeSet<>();
    for (String sql : statements) {
      Matcher drop = DROP_INDEX.matcher(sql);
      if (drop.matches()) {
        // Gone from the schema parsed so far; a version parsed alone records the drop only.
        indexes.remove(lower(drop.group(1)));
        dropped.add(lower(drop.group(1)));
        continue;
      }
      Matcher table = CREATE_TABLE.matcher(sql);
      Matcher index = CREATE_INDEX.matcher(sql);
      Matcher added = ADD_COLUMN.matcher(sql);
      if (added.matches()) {
        // A later version's column: appended, like the database appends it. A version file
        // parsed alone records it under its table too.
        List<String> cols = columns.computeIfAbsent(lower(added.group(1)), t -> new ArrayList<>());
        if (cols.contains(lower(added.group(2)))) {
          fail("column added twice: " + added.group(1) + "." + added.group(2));
        }
        cols.add(lower(added.group(2)));
      } else if (table.matches()) {
        List<String> cols = new ArrayList<>();
        for (String line : table.group(2).split("\n")) {
          String item = line.strip();
          if (item.endsWith(",")) {
            item = item.substring(0, item.length() - 1).strip();
          }
          if (item.isEmpty()) {
            continue;
          }
          Matcher constraint = CONSTRAINT.matcher(item);
          Matcher column = COLUMN.matcher(item);
          if (constraint.matches()) {
            String definition =
                normalise(constraint.group(2))
                    + " on "
                    + lower(table.group(1))
                    + " ("
                    + normalise(constraint.group(3))
                    + ")";
            if (constraints.put(lower(constraint.group(1)), definition) != null) {
              fail("constraint defined twice: " + constraint.group(1));
            }
          } else if (column.matches()) {
            cols.add(lower(column.group(1)));
          } else {
            fail("unrecognised line in CREATE TABLE " + table.group(1) + ": " + item);
          }
        }
        if (columns.put(lower(table.group(1)), cols) != null) {
          fail("table defined twice: " + table.group(1));
        }
      } else if (index.matches()) {
        String definition =
            (index.group(1) == null ? "" : "unique ")
                + "on "
                + lower(index.group(3))
                + " ("
                + normalise(index.group(4))
                + ")";
        if (indexes.put(lower(index.group(2)), definition) != null) {
          fail("index defined twice: " + index.group(2));
        }
      } else {
        fail("unrecognised schema statement: " + sql);
      }
    }
    return new Schema(columns, indexes, constraints, dropped);
  }

  private static String normalise(String s) {
    return lower(s).replaceAll("\\s+", " ").replaceAll("\\s*,\\s*", ", ").strip();
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
