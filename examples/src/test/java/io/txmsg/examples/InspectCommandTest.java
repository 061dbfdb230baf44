package io.txmsg.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.cli.TxmsgCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The "inspect it" line the demo prints works when copied as printed: it is split the way a POSIX
 * shell splits it and run through the txmsg CLI, against an H2 database the demo's own pool created
 * (user {@code sa}) and still holds open, as while the demo runs.
 */
class InspectCommandTest {
  @TempDir Path dir;

  @Test
  void thePrintedJournalStatsCommandLogsInToTheDemosH2DatabaseAsPrinted() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("payments") + ";WRITE_DELAY=0;AUTO_SERVER=TRUE";
    DemoOptions o = DemoOptions.parse();
    try (HikariDataSource demoPool = PaymentDemo.dataSource(url, o)) {
      demoPool.getConnection().close(); // the demo's pool creates the database, user sa
      String printed = InspectCommand.journalStats(url, o.userFor(url));
      assertThat(printed).startsWith(InspectCommand.CLI + " journal stats --jdbc-url '");

      List<String> args = shellWords(printed.substring(InspectCommand.CLI.length()));
      List<String> install = new ArrayList<>(List.of("schema", "apply"));
      install.addAll(args.subList(2, args.size())); // the same connection arguments
      Run installed = cli(install);
      assertThat(installed.exitCode).as("schema apply: " + installed.err).isZero();

      Run stats = cli(args);
      assertThat(stats.exitCode).as(stats.err).isZero();
      assertThat(stats.err).doesNotContain("Wrong user name or password");
    }
  }

  @Test
  void aQuoteInTheUrlOrUserSurvivesTheShell() {
    String printed = InspectCommand.journalStats("jdbc:postgresql://db/it's", "o'brien");
    assertThat(shellWords(printed))
        .containsExactly(
            "java",
            "-jar",
            "txmsg-cli/target/txmsg.jar",
            "journal",
            "stats",
            "--jdbc-url",
            "jdbc:postgresql://db/it's",
            "--user",
            "o'brien");
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run cli(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new TxmsgCli());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * Splits a line as a POSIX shell does for plain words, single-quoted strings and backslash
   * escapes; anything else a shell would treat specially ({@code ; " $ ` | & < > ( ) * ?} outside
   * quotes) fails the test, since the printed line must not depend on it.
   */
  private static List<String> shellWords(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    boolean quoted = false;
    boolean escaped = false;
    for (char c : line.toCharArray()) {
      if (quoted) {
        if (c == '\'') {
          quoted = false;
        } else {
          word.append(c);
        }
      } else if (escaped) {
        word.append(c);
        escaped = false;
      } else if (c == '\'') {
        quoted = true;
        word = word == null ? new StringBuilder() : word;
      } else if (c == '\\') {
        escaped = true;
        word = word == null ? new StringBuilder() : word;
      } else if (";\"$`|&<>()*?".indexOf(c) >= 0) {
        throw new IllegalArgumentException("unquoted " + c + " in: " + line);
      } else if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (quoted || escaped) {
      throw new IllegalArgumentException("unclosed quote or escape: " + line);
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }
}
