package io.txmsg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.testkit.db.DatabaseFixture;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** Runs the CLI in-process against a test database and captures what it printed. */
final class Cli {
  /** What one run printed and returned. */
  record Run(int exitCode, String out, String err) {
    JsonNode json() {
      try {
        return new ObjectMapper().readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("stdout is not JSON:\n" + out, e);
      }
    }

    /** Everything printed, for "never shows X" assertions. */
    String all() {
      return out + err;
    }
  }

  private final List<String> connection;

  /** Connection arguments for the fixture's database; the password travels in a file. */
  Cli(DatabaseFixture db, Path dir) throws IOException {
    HikariDataSource ds = (HikariDataSource) db.dataSource();
    Path passwordFile = Files.writeString(dir.resolve("password"), ds.getPassword() + "\n");
    connection =
        List.of(
            "--jdbc-url",
            db.jdbcUrl(),
            "--user",
            ds.getUsername(),
            "--password-file",
            passwordFile.toString());
  }

  /** Runs a command with the connection arguments appended. */
  Run run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(connection);
    return raw(all.toArray(String[]::new));
  }

  /** Runs exactly these arguments. */
  static Run raw(String... args) {
    return raw(new TxmsgCli(), args);
  }

  /** Runs exactly these arguments with no TXMSG_* environment, whatever the caller's is. */
  static Run rawWithoutEnvironment(String... args) {
    return raw(new TxmsgCli(name -> null), args);
  }

  private static Run raw(TxmsgCli cli, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(cli);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }
}
