package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code txmsg ...} line in the code blocks of docs/runbook.md and README.md runs against a
 * filled database without a usage or database error (placeholders like {@code <eventId>} are filled
 * with real rows). A runbook whose commands do not parse is worse than none at 3 a.m.
 */
@DatabaseIndependent
class RunbookCommandsTest {
  @TempDir Path dir;

  @Test
  void everyRunbookCommandParsesAndRuns() throws Exception {
    List<String> commands = commands(Path.of("..", "docs", "runbook.md"));
    commands.addAll(commands(Path.of("..", "README.md")));
    assertThat(commands).hasSizeGreaterThan(15);
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      rows.journal("e1", "PENDING", "payment", "Paid", "order-1001", Duration.ofMinutes(20));
      rows.journal("e2", "DEAD", "payment", "Paid", "order-1002", Duration.ofHours(1));
      rows.journal("e3", "SENDING", "payment", "Paid", "order-1003", Duration.ofMinutes(1));
      rows.consumeLog("points", "e1", "PARKED", Duration.ofMinutes(10));
      rows.deadLetter(
          "points",
          "e1",
          "MESSAGE",
          "PARKED",
          "PERMANENT_ERROR",
          "Paid",
          "order-1001",
          null,
          Duration.ofMinutes(10));
      rows.deadLetter(
          "points",
          "e4",
          "MESSAGE",
          "PARKED",
          "BROKER_DLQ",
          "Paid",
          "order-1004",
          null,
          Duration.ofMinutes(5));
      rows.deadLetter(
          "search-projection",
          "e5",
          "MESSAGE",
          "PARKED",
          "GAP",
          "OrderPaid",
          "order-1005",
          null,
          Duration.ofMinutes(5));
      rows.replayAudit("r1", "points", "STOPPED");
      Cli cli = new Cli(db, dir);
      for (String line : commands) {
        String[] args =
            tokens(
                line.replace("<eventId>,<eventId>", "e2")
                    .replace("<eventId>", "e1")
                    .replace("<businessKey>", "order-1001")
                    .replace("<requestId>", "r1")
                    .replace("<storeId>", "default"));
        Cli.Run run = cli.run(args);
        if (line.startsWith("cdc ")) {
          // This database is H2, which has no change log: the command must get as far as saying
          // so (its options parsed). CdcCommandTest runs the cdc commands on MariaDB and
          // PostgreSQL.
          assertThat(run.all()).as(line).contains("H2, which has no change log");
          continue;
        }
        assertThat(run.exitCode())
            .as("%s%n%s", line, run.all())
            .isIn(TxmsgCli.OK, TxmsgCli.FINDINGS);
        assertThat(run.err()).as(line).doesNotContain("Exception");
      }
    }
  }

  /** The lines of ```bash blocks that start with "txmsg ", without trailing comments. */
  static List<String> commands(Path runbook) throws Exception {
    List<String> out = new ArrayList<>();
    boolean inBash = false;
    String pending = "";
    for (String raw : Files.readAllLines(runbook)) {
      String line = raw.strip();
      if (line.startsWith("```")) {
        inBash = line.equals("```bash");
        continue;
      }
      if (!inBash) {
        continue;
      }
      int comment = line.indexOf("  #");
      if (comment >= 0) {
        line = line.substring(0, comment).strip();
      }
      if (!pending.isEmpty()) {
        line = pending + " " + line;
        pending = "";
      }
      if (line.endsWith("\\")) {
        pending = line.substring(0, line.length() - 1).strip();
        continue;
      }
      if (line.startsWith("txmsg ")) {
        out.add(line.substring("txmsg ".length()));
      }
    }
    return out;
  }

  /** Splits like a shell for the simple cases the runbook uses: spaces and double quotes. */
  static String[] tokens(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : line.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
        any = true;
      } else if (c == ' ' && !quoted) {
        if (any) {
          out.add(cur.toString());
          cur.setLength(0);
          any = false;
        }
      } else {
        cur.append(c);
        any = true;
      }
    }
    if (any) {
      out.add(cur.toString());
    }
    return out.toArray(String[]::new);
  }
}
