package io.txmsg.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalClaims;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole-row reads name their columns (Columns.xml), so that a column added while instances run
 * changes nothing they read: on PostgreSQL a pooled connection's server-prepared {@code SELECT *}
 * fails once its table gains a column.
 */
class ColumnListsTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String PREFIX = "txmsg_";
  private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
  private static final Pattern STAR =
      Pattern.compile("(?i)\\b(SELECT|RETURNING)\\s+(\\w+\\.)?\\*|\\b\\w+\\.\\*");
  private static final Pattern FRAGMENT =
      Pattern.compile("<sql id=\"(\\w+)\">(.*?)</sql>", Pattern.DOTALL);

  /** pgjdbc prepares a statement on the server from its fifth execution on a connection. */
  private static final int PLANNED = 6;

  @Test
  @DatabaseIndependent
  void noStatementReadsWholeRowsWithAStar() throws IOException {
    for (String resource : TxmsgStore.MAPPERS) {
      String xml = COMMENT.matcher(read(resource)).replaceAll("");
      Matcher star = STAR.matcher(xml);
      String hit = star.find() ? xml.substring(star.start(), star.end()) : null;
      assertThat(hit).as(resource).isNull();
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void eachColumnListNamesEveryColumnOfItsTableInTheInstalledSchema(TestDatabase kind)
      throws Exception {
    Map<String, List<String>> lists = columnLists();
    assertThat(lists)
        .containsOnlyKeys("journal", "consumeLog", "deadLetter", "replayAudit", "command");
    try (DatabaseFixture db = kind.open();
        Connection c = db.dataSource().getConnection()) {
      SchemaInstaller.install(c, Dialect.detect(c), PREFIX);
      for (Map.Entry<String, List<String>> e : lists.entrySet()) {
        String table = PREFIX + snake(e.getKey());
        assertThat(e.getValue()).as(kind + " " + table).isEqualTo(columnsOf(c, table));
      }
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void wholeRowReadsKeepWorkingOnAPooledConnectionAfterAColumnIsAddedOnline(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open();
        HikariDataSource running = oneConnection(db)) {
      assertThat(SchemaInstaller.installIfMissing(db.dataSource(), PREFIX)).isTrue();
      TxmsgStore store = TxmsgStore.detect(running, PREFIX);
      boolean postgres = store.dialect() == Dialect.POSTGRESQL;
      Journal journal = new Journal(running, store);
      ConsumeLog consumeLog = new ConsumeLog(running, store);
      // The reconciler's claim: on PostgreSQL an UPDATE ... RETURNING of whole rows.
      JournalClaims claims = new JournalClaims(running, store, "s");
      try (Connection c = running.getConnection()) {
        c.setAutoCommit(false);
        for (int i = 0; i <= PLANNED; i++) {
          journal.insert(c, StoreFixtures.journalRow("e-" + i), 0);
        }
        assertThat(consumeLog.claim(c, "g", "e-0", "Paid", "0".repeat(64), 1)).isTrue();
        c.commit();
      }
      String star = "SELECT * FROM " + PREFIX + "journal WHERE event_id = 'e-0'";
      for (int i = 0; i < PLANNED; i++) {
        assertThat(journal.find("e-0").getEventId()).isEqualTo("e-0");
        assertThat(consumeLog.find("g", "e-0").getStatus()).isEqualTo(ConsumeStatus.SUCCESS);
        assertThat(claims.claimDue("owner", 60_000, 1)).hasSize(1);
        selectStar(running, star);
      }

      // An online upgrade on another connection, as a migration tool would run it.
      try (Connection ddl = db.dataSource().getConnection();
          Statement s = ddl.createStatement()) {
        ddl.setAutoCommit(true);
        s.execute("ALTER TABLE " + PREFIX + "journal ADD COLUMN online_extra INT");
        s.execute("ALTER TABLE " + PREFIX + "consume_log ADD COLUMN online_extra INT");
      }

      JournalRow row = journal.find("e-0");
      assertThat(row.getEventId()).isEqualTo("e-0");
      assertThat(row.getPayload()).containsExactly(1, 2, 3);
      assertThat(consumeLog.find("g", "e-0").getStatus()).isEqualTo(ConsumeStatus.SUCCESS);
      assertThat(claims.claimDue("owner", 60_000, 1))
          .extracting(JournalRow::getOwnerToken)
          .containsExactly("owner");
      if (postgres) {
        // The hazard is real on this pool's connection: the same read written with a star fails
        // (last: HikariCP then closes the connection, and a new one has no cached plans).
        assertThatThrownBy(() -> selectStar(running, star))
            .as("SELECT * after ADD COLUMN")
            .isInstanceOfSatisfying(
                SQLException.class,
                e -> assertThat(e.getSQLState()).as(e.toString()).isEqualTo("0A000"));
      }
    }
  }

  /** A pool of one connection to the fixture's database: every read reuses its cached plans. */
  private static HikariDataSource oneConnection(DatabaseFixture db) {
    HikariConfig config = new HikariConfig();
    ((HikariDataSource) db.dataSource()).copyStateTo(config);
    config.setPoolName("txmsg-test-one-connection");
    config.setMaximumPoolSize(1);
    config.setMinimumIdle(1);
    return new HikariDataSource(config);
  }

  /**
   * The read written with a star, in a transaction as txmsg reads: in auto-commit mode pgjdbc
   * re-plans and retries a statement that failed this way, inside a transaction it cannot.
   */
  private static void selectStar(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql);
          ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
      } finally {
        // HikariCP closes a connection whose statement failed with 0A000 (it reads the state as
        // a broken connection), so only a connection still open is rolled back.
        if (!c.isClosed()) {
          c.rollback();
        }
      }
    }
  }

  /** Columns.xml's lists by fragment id, each in its written order. */
  private static Map<String, List<String>> columnLists() throws IOException {
    Map<String, List<String>> lists = new LinkedHashMap<>();
    Matcher m =
        FRAGMENT.matcher(COMMENT.matcher(read("io/txmsg/store/Columns.xml")).replaceAll(""));
    while (m.find()) {
      lists.put(
          m.group(1),
          Arrays.stream(m.group(2).split(","))
              .map(s -> s.strip().toLowerCase(Locale.ROOT))
              .toList());
    }
    return lists;
  }

  private static List<String> columnsOf(Connection c, String table) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    String stored = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
    Map<Integer, String> byPosition = new TreeMap<>();
    try (ResultSet rs = md.getColumns(c.getCatalog(), c.getSchema(), stored, "%")) {
      while (rs.next()) {
        byPosition.put(
            rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
      }
    }
    return new ArrayList<>(byPosition.values());
  }

  private static String snake(String camel) {
    return camel.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = ColumnListsTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
