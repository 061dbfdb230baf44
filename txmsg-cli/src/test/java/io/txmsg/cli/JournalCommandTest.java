package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code journal list|show|stats} on every enabled database. */
class JournalCommandTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  @TempDir Path dir;

  /** Six rows, created 6h..1m ago: the list order is e1..e6. */
  private static void fill(OpsRows rows) throws Exception {
    rows.journal("e1", "PENDING", "payment", "Paid", "bk-1", Duration.ofHours(6));
    rows.journal("e2", "SENT", "payment", "Paid", "bk-2", Duration.ofHours(5));
    rows.journal("e3", "RETRY", "refund", "Refunded", "bk-3", Duration.ofHours(4));
    rows.journal("e4", "DEAD", "payment", "Paid", "bk-4", Duration.ofHours(3));
    rows.journal("e5", "SENT", "refund", "Refunded", "bk-1", Duration.ofHours(2));
    rows.journal("e6", "PENDING", "payment", "Paid", "bk-6", Duration.ofMinutes(1));
  }

  private static List<String> ids(JsonNode listDoc) {
    List<String> out = new ArrayList<>();
    listDoc.get("rows").forEach(r -> out.add(r.get("event_id").asText()));
    return out;
  }

  /**
   * Filters are bound values, never SQL: text made to break out of a quoted literal matches no row
   * and changes nothing, on every command that takes one; a prefix is an identifier or a usage
   * error before any connection.
   */
  @ParameterizedTest
  @MethodSource(DB)
  void filtersWithSqlMetacharactersAreValuesAndAPrefixWithThemIsRefused(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      fill(rows);
      Cli cli = new Cli(db, dir);
      String hostile = "x' OR '1'='1'; DELETE FROM txmsg_journal; --";
      for (String option : List.of("--business-key", "--destination", "--event-type")) {
        Cli.Run run = cli.run("journal", "list", option, hostile, "--json");
        assertThat(run.exitCode()).as(option + ": " + run.err()).isZero();
        assertThat(ids(run.json())).as(option).isEmpty();
      }
      Cli.Run dlq = cli.run("dlq", "list", "--group", hostile, "--business-key", hostile, "--json");
      assertThat(dlq.exitCode()).as(dlq.err()).isZero();
      assertThat(cli.run("trace", hostile).exitCode()).isNotEqualTo(TxmsgCli.DATABASE);
      assertThat(cli.run("journal", "show", hostile).exitCode()).isNotEqualTo(TxmsgCli.DATABASE);
      assertThat(rows.column("SELECT event_id FROM txmsg_journal ORDER BY event_id"))
          .containsExactly("e1", "e2", "e3", "e4", "e5", "e6");

      for (String prefix : List.of("txmsg_; DROP TABLE txmsg_journal; --", "a' OR '1", "x y_")) {
        Cli.Run run = cli.run("journal", "list", "--prefix", prefix);
        assertThat(run.exitCode()).as(prefix).isEqualTo(TxmsgCli.USAGE);
        assertThat(run.err()).as(prefix).contains("tablePrefix", "[a-z][a-z0-9_]{0,23}");
      }
      assertThat(rows.column("SELECT event_id FROM txmsg_journal ORDER BY event_id")).hasSize(6);
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void listFiltersAndKeysetPaging(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      fill(new OpsRows(db.dataSource()));
      Cli cli = new Cli(db, dir);

      assertThat(ids(cli.run("journal", "list", "--json").json()))
          .containsExactly("e1", "e2", "e3", "e4", "e5", "e6");
      assertThat(ids(cli.run("journal", "list", "--status", "PENDING", "--json").json()))
          .containsExactly("e1", "e6");
      assertThat(
              ids(
                  cli.run(
                          "journal",
                          "list",
                          "--status",
                          "PENDING,RETRY",
                          "--older-than",
                          "1h",
                          "--json")
                      .json()))
          .containsExactly("e1", "e3");
      assertThat(ids(cli.run("journal", "list", "--destination", "refund", "--json").json()))
          .containsExactly("e3", "e5");
      assertThat(ids(cli.run("journal", "list", "--event-type", "Paid", "--json").json()))
          .containsExactly("e1", "e2", "e4", "e6");
      assertThat(ids(cli.run("journal", "list", "--business-key", "bk-1", "--json").json()))
          .containsExactly("e1", "e5");
      assertThat(ids(cli.run("journal", "list", "--older-than", "150m", "--json").json()))
          .containsExactly("e1", "e2", "e3", "e4");

      // Keyset paging walks every row once, in order.
      List<String> seen = new ArrayList<>();
      String after = null;
      int pages = 0;
      do {
        Cli.Run page =
            after == null
                ? cli.run("journal", "list", "--limit", "4", "--json")
                : cli.run("journal", "list", "--limit", "4", "--after", after, "--json");
        assertThat(page.exitCode()).isZero();
        JsonNode doc = page.json();
        seen.addAll(ids(doc));
        after = doc.get("next_after").isNull() ? null : doc.get("next_after").asText();
        pages++;
      } while (after != null && pages < 5);
      assertThat(seen).containsExactly("e1", "e2", "e3", "e4", "e5", "e6");
      assertThat(pages).isEqualTo(2);

      Cli.Run table = cli.run("journal", "list", "--limit", "2");
      assertThat(table.exitCode()).isZero();
      assertThat(table.out()).contains("EVENT_ID", "STATUS", "e1", "e2", "next page: --after e2");
      assertThat(table.out()).doesNotContain("e3");
      assertThat(table.all()).doesNotContain("payload-of");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void showHidesThePayloadUnlessAskedAndAMissingRowIsAFinding(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      fill(new OpsRows(db.dataSource()));
      Cli cli = new Cli(db, dir);

      Cli.Run shown = cli.run("journal", "show", "e3");
      assertThat(shown.exitCode()).isZero();
      assertThat(shown.out()).contains("event_id", "e3", "RETRY", "payload_size");
      assertThat(shown.all()).doesNotContain("payload-of-e3");

      JsonNode json = cli.run("journal", "show", "e3", "--json").json();
      assertThat(json.get("status").asText()).isEqualTo("RETRY");
      assertThat(json.get("retry_count").asInt()).isEqualTo(2);
      assertThat(json.get("payload_size").asInt()).isEqualTo(OpsRows.payload("e3").length);
      assertThat(json.has("payload_utf8")).isFalse();

      assertThat(json.get("publish_mode").asText()).isEqualTo("HALF_MESSAGE");
      assertThat(json.get("published_as").asText()).startsWith("half message");

      // An OUTBOX row on a FIFO topic says how it goes out.
      try (java.sql.Connection c = db.dataSource().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.executeUpdate(
            "UPDATE txmsg_journal SET publish_mode = 'SEND', message_group = 'Payment:1'"
                + " WHERE event_id = 'e1'");
      }
      JsonNode outbox = cli.run("journal", "show", "e1", "--json").json();
      assertThat(outbox.get("publish_mode").asText()).isEqualTo("SEND");
      assertThat(outbox.get("message_group").asText()).isEqualTo("Payment:1");
      assertThat(outbox.get("published_as").asText())
          .startsWith("FIFO send in message group 'Payment:1'");
      assertThat(cli.run("journal", "show", "e1").out()).contains("published_as", "SEND");

      JsonNode withPayload = cli.run("journal", "show", "e3", "--json", "--show-payload").json();
      assertThat(withPayload.get("payload_utf8").asText()).contains("payload-of-e3");

      Cli.Run missing = cli.run("journal", "show", "nope");
      assertThat(missing.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(missing.err()).contains("no journal row").doesNotContain("\tat ");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void statsCountAndTheOldestPendingThresholdSetsTheExitCode(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      fill(new OpsRows(db.dataSource()));
      Cli cli = new Cli(db, dir);

      Cli.Run stats = cli.run("journal", "stats", "--json");
      assertThat(stats.exitCode()).isZero();
      JsonNode doc = stats.json();
      assertThat(doc.get("by_status").get("PENDING").asLong()).isEqualTo(2);
      assertThat(doc.get("by_status").get("SENT").asLong()).isEqualTo(2);
      assertThat(doc.get("by_status").get("RETRY").asLong()).isEqualTo(1);
      assertThat(doc.get("dead").asLong()).isEqualTo(1);
      assertThat(doc.get("by_status_destination")).hasSize(5);
      // The oldest PENDING row is 6h old by the database clock.
      long oldestPending = doc.get("oldest_age_millis").get("PENDING").asLong();
      assertThat(oldestPending)
          .isBetween(Duration.ofHours(6).toMillis(), Duration.ofHours(7).toMillis());
      assertThat(doc.get("oldest_unconfirmed_age_millis").asLong()).isEqualTo(oldestPending);

      Cli.Run text = cli.run("journal", "stats");
      assertThat(text.out())
          .contains("PENDING", "payment", "refund", "DEAD: 1", "OLDEST_AGE", "6h");

      Cli.Run exceeded = cli.run("journal", "stats", "--fail-if-oldest-pending", "5h");
      assertThat(exceeded.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(exceeded.err()).contains("above --fail-if-oldest-pending");

      assertThat(cli.run("journal", "stats", "--fail-if-oldest-pending", "7h").exitCode()).isZero();
    }
  }
}
