package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code trace} and {@code dlq list|show} on every enabled database. */
class TraceAndDlqCommandTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";

  @TempDir Path dir;

  /**
   * Event e1 (business key order-77): published 3 h ago, applied by billing a minute later, marked
   * SENT 30 minutes ago, parked in mail (replay r1 requested), and a conflict in audit. Event e2:
   * another group's parked message only.
   */
  private static void fill(OpsRows rows) throws Exception {
    rows.journal("e1", "PENDING", "payment", "Paid", "order-77", Duration.ofHours(3));
    // Confirmed long after billing got it: updated_at is later than every consume-log row.
    rows.markJournalSent("e1", Duration.ofMinutes(30));
    rows.consumeLog("billing", "e1", "SUCCESS", Duration.ofHours(3).minusMinutes(1));
    rows.consumeLog("mail", "e1", "PARKED", Duration.ofHours(2));
    rows.deadLetter(
        "mail",
        "e1",
        "MESSAGE",
        "REPLAY_REQUESTED",
        "MAX_ATTEMPTS",
        "Paid",
        "order-77",
        "r1",
        Duration.ofHours(2));
    rows.deadLetter(
        "audit",
        "e1",
        "CONFLICT",
        "PARKED",
        "CONFLICT",
        "Paid",
        "order-77",
        null,
        Duration.ofHours(1));
    rows.replayAudit("r1", "mail", "RUNNING");
    rows.deadLetter(
        "mail",
        "e2",
        "MESSAGE",
        "PARKED",
        "NO_HANDLER",
        "Refunded",
        "order-88",
        null,
        Duration.ofMinutes(10));
  }

  private static List<String> column(JsonNode rows, String field) {
    List<String> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.get(field).asText()));
    return out;
  }

  @ParameterizedTest
  @MethodSource(DB)
  void traceShowsTheJournalEveryGroupsConsumeLogDeadLettersAndReplays(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      fill(new OpsRows(db.dataSource()));
      Cli cli = new Cli(db, dir);

      Cli.Run text = cli.run("trace", "e1");
      assertThat(text.exitCode()).isZero();
      assertThat(text.out())
          .contains("SOURCE", "journal", "SENT", "topic=payment")
          .contains("consume_log", "billing", "SUCCESS", "result=result-e1")
          .contains("mail", "PARKED")
          .contains("dead_letter", "REPLAY_REQUESTED", "reason=MAX_ATTEMPTS", "replay=r1")
          .contains("audit", "CONFLICT")
          .contains("replay", "request=r1", "RUNNING", "by=alice");
      assertThat(text.all()).doesNotContain("payload-of");
      // One aligned view: every line of the table starts its SOURCE column at the same offset.
      List<String> lines = text.out().lines().toList();
      int sourceColumn = lines.get(0).indexOf("SOURCE");
      assertThat(lines.subList(1, lines.size()))
          .hasSize(6)
          .allSatisfy(
              l ->
                  assertThat(l.substring(sourceColumn))
                      .matches("^(journal|consume_log|dead_letter|replay) .*"));

      JsonNode doc = cli.run("trace", "e1", "--json").json();
      JsonNode event = doc.get("events").get(0);
      // Each line says which time it shows: the journal's is its created_at (not the later
      // updated_at), so it is not later than the consume log's first_received_at.
      String header = lines.get(0);
      assertThat(header).contains("TIME", "TIME_IS", "DETAIL");
      int time = header.indexOf("TIME ");
      int timeIs = header.indexOf("TIME_IS");
      int detail = header.indexOf("DETAIL");
      Map<String, List<String>> timesIs = new HashMap<>();
      Map<String, List<Instant>> times = new HashMap<>();
      for (String l : lines.subList(1, lines.size())) {
        String source = l.substring(sourceColumn).split(" ")[0];
        timesIs
            .computeIfAbsent(source, k -> new ArrayList<>())
            .add(l.substring(timeIs, detail).strip());
        times
            .computeIfAbsent(source, k -> new ArrayList<>())
            .add(Instant.parse(l.substring(time, timeIs).strip()));
      }
      assertThat(timesIs.get("journal")).containsExactly("created_at");
      assertThat(timesIs.get("consume_log")).containsOnly("first_received_at");
      assertThat(timesIs.get("dead_letter")).containsOnly("created_at");
      assertThat(timesIs.get("replay")).containsExactly("requested_at");
      JsonNode journal = event.get("journal");
      assertThat(times.get("journal"))
          .containsExactly(Instant.parse(journal.get("created_at").asText()));
      assertThat(times.get("consume_log"))
          .allSatisfy(t -> assertThat(t).isAfter(times.get("journal").get(0)));
      String journalLine =
          lines.stream()
              .filter(l -> l.substring(sourceColumn).startsWith("journal "))
              .findFirst()
              .get();
      assertThat(journalLine)
          .contains("sent_at=" + Instant.parse(journal.get("sent_at").asText()))
          .contains("updated_at=" + Instant.parse(journal.get("updated_at").asText()));
      assertThat(Instant.parse(journal.get("updated_at").asText()))
          .as("the later time the TIME column must not show")
          .isAfter(times.get("consume_log").get(0));
      assertThat(event.get("journal").get("status").asText()).isEqualTo("SENT");
      assertThat(event.get("journal").has("payload_utf8")).isFalse();
      assertThat(column(event.get("consume_log"), "consumer_group"))
          .containsExactly("billing", "mail");
      assertThat(column(event.get("dead_letters"), "consumer_group"))
          .containsExactly("audit", "mail");
      assertThat(column(event.get("replays"), "request_id")).containsExactly("r1");

      // By business key: the journal's key finds e1; a dead letter's key finds e2 (no journal row).
      JsonNode byKey = cli.run("trace", "order-77", "--json").json();
      assertThat(column(byKey.get("events"), "event_id")).containsExactly("e1");
      Cli.Run consumerOnly = cli.run("trace", "order-88");
      assertThat(consumerOnly.exitCode()).isZero();
      assertThat(consumerOnly.out()).contains("e2", "no journal row", "NO_HANDLER");

      Cli.Run nothing = cli.run("trace", "nothing-here");
      assertThat(nothing.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(nothing.err()).contains("nothing-here");
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void dlqListFiltersAndShowHidesThePayload(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      fill(new OpsRows(db.dataSource()));
      Cli cli = new Cli(db, dir);

      assertThat(column(cli.run("dlq", "list", "--json").json().get("rows"), "event_id"))
          .containsExactly("e1", "e1", "e2");
      assertThat(
              column(
                  cli.run("dlq", "list", "--group", "mail", "--json").json().get("rows"),
                  "event_id"))
          .containsExactly("e1", "e2");
      assertThat(
              column(
                  cli.run("dlq", "list", "--status", "PARKED", "--json").json().get("rows"),
                  "consumer_group"))
          .containsExactly("audit", "mail");
      assertThat(
              column(
                  cli.run("dlq", "list", "--reason", "NO_HANDLER,CONFLICT", "--json")
                      .json()
                      .get("rows"),
                  "reason"))
          .containsExactly("CONFLICT", "NO_HANDLER");
      assertThat(
              column(
                  cli.run("dlq", "list", "--kind", "CONFLICT", "--json").json().get("rows"),
                  "consumer_group"))
          .containsExactly("audit");
      assertThat(
              column(
                  cli.run("dlq", "list", "--event-type", "Refunded", "--json").json().get("rows"),
                  "event_id"))
          .containsExactly("e2");
      assertThat(
              column(
                  cli.run("dlq", "list", "--business-key", "order-77", "--json").json().get("rows"),
                  "consumer_group"))
          .containsExactly("mail", "audit");
      assertThat(
              column(
                  cli.run("dlq", "list", "--since", "90m", "--json").json().get("rows"),
                  "consumer_group"))
          .containsExactly("audit", "mail");
      assertThat(
              column(
                  cli.run("dlq", "list", "--since", "3h", "--until", "30m", "--json")
                      .json()
                      .get("rows"),
                  "consumer_group"))
          .containsExactly("mail", "audit");

      Cli.Run table = cli.run("dlq", "list");
      assertThat(table.out())
          .contains("CONSUMER_GROUP", "MAX_ATTEMPTS", "boom second line", "(3 rows)");
      assertThat(table.all()).doesNotContain("payload-of");

      Cli.Run show = cli.run("dlq", "show", "mail", "e1");
      assertThat(show.exitCode()).isZero();
      assertThat(show.out())
          .contains("REPLAY_REQUESTED", "replay_request_id", "r1", "payload_size");
      assertThat(show.all()).doesNotContain("payload-of-e1");
      JsonNode shown = cli.run("dlq", "show", "mail", "e1", "--show-payload", "--json").json();
      assertThat(shown.get(0).get("payload_utf8").asText()).contains("payload-of-e1");

      Cli.Run missing = cli.run("dlq", "show", "mail", "e9");
      assertThat(missing.exitCode()).isEqualTo(TxmsgCli.FINDINGS);
      assertThat(missing.err()).contains("no dead letter");
    }
  }
}
