package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The replay request's bookkeeping, without a running application. */
class ReplayCommandTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  @TempDir Path dir;

  @ParameterizedTest
  @MethodSource(DB)
  void aRequestLeftRunningByADeadWorkerIsTakenOverAndItsRowsRequestedAgain(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      rows.replayAudit("dead-worker", "points", "RUNNING");
      for (String id : new String[] {"e1", "e2"}) {
        rows.deadLetter(
            "points",
            id,
            "MESSAGE",
            "REPLAY_REQUESTED",
            "PERMANENT_ERROR",
            "Paid",
            "k-" + id,
            "dead-worker",
            Duration.ofMinutes(30));
      }
      Cli cli = new Cli(db, dir);
      Cli.Run plain = cli.run("replay", "--group", "points", "--reason", "again", "--json");
      assertThat(plain.json().get("selected").asInt()).isZero(); // rows still held by the request

      Cli.Run take =
          cli.run(
              "replay",
              "--take-over",
              "dead-worker",
              "--group",
              "points",
              "--reason",
              "worker died",
              "--operator",
              "carol",
              "--json");
      assertThat(take.exitCode()).as(take.all()).isZero();
      assertThat(take.json().get("selected").asInt()).isEqualTo(2);
      Cli.Run old = cli.run("replay", "--show", "dead-worker", "--json");
      assertThat(old.json().get("status").asText()).isEqualTo("STOPPED");
      assertThat(old.json().get("stopped_reason").asText()).contains("taken over by carol");
      String fresh = take.json().get("request_id").asText();
      Cli.Run now = cli.run("replay", "--show", fresh, "--json");
      assertThat(now.json().get("status").asText()).isEqualTo("REQUESTED");
      assertThat(now.json().get("operator").asText()).isEqualTo("carol");
    }
  }
}
