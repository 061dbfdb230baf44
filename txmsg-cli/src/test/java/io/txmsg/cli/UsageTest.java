package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Exit codes and messages for bad input and failing databases: one line, never a stack trace. */
class UsageTest {
  private static final String DB = "io.txmsg.testkit.db.TestDatabases#enabled";
  private static final String URL = "jdbc:h2:mem:usage";

  @TempDir Path dir;

  private static void assertUsageError(Cli.Run run, String message) {
    assertThat(run.exitCode()).as(run.all()).isEqualTo(TxmsgCli.USAGE);
    assertThat(run.err()).contains(message, "Usage:");
    assertThat(run.all()).doesNotContain("\tat ", "Exception");
    assertThat(run.out()).isEmpty();
  }

  @Test
  @DatabaseIndependent
  void helpListsTheCommands() {
    Cli.Run help = Cli.raw("--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("journal", "trace", "dlq", "archive", "schema", "Exit codes");
    Cli.Run schema = Cli.raw("schema", "--help");
    assertThat(schema.out()).contains("check", "print", "apply");
    Cli.Run sub = Cli.raw("journal", "list", "--help");
    assertThat(sub.out()).contains("--status", "PENDING", "SENT", "DEAD");
    // A journal row is never ROLLED_BACK: that is an attempt state.
    assertThat(sub.out()).doesNotContain("ROLLED_BACK");
    assertThat(sub.out()).contains("--password-file", "--prefix", "txmsg_");
  }

  @Test
  @DatabaseIndependent
  void unknownStatusIsAUsageError() {
    assertUsageError(
        Cli.raw("journal", "list", "--status", "PENDIGN", "--jdbc-url", URL), "PENDIGN");
    assertUsageError(
        Cli.raw("dlq", "list", "--reason", "OOPS", "--jdbc-url", URL), "expected one of");
  }

  @Test
  @DatabaseIndependent
  void badDurationIsAUsageError() {
    assertUsageError(
        Cli.raw("journal", "list", "--older-than", "5 minutes", "--jdbc-url", URL),
        "invalid duration '5 minutes'");
    assertUsageError(
        Cli.raw("journal", "stats", "--fail-if-oldest-pending", "-5m", "--jdbc-url", URL),
        "invalid duration");
    assertUsageError(
        Cli.raw("dlq", "list", "--since", "yesterday", "--jdbc-url", URL), "invalid time");
  }

  @Test
  @DatabaseIndependent
  void archiveWithoutReasonIsAUsageError() {
    assertUsageError(Cli.raw("archive", "--jdbc-url", URL), "--reason");
    assertUsageError(Cli.raw("archive", "--reason", " ", "--jdbc-url", URL), "--reason");
    assertUsageError(
        Cli.raw("archive", "--reason", "r", "--operator", "o".repeat(129), "--jdbc-url", URL),
        "--operator is 129 characters long; at most 128 are recorded");
    assertUsageError(Cli.raw("archive-runs", "--limit", "0", "--jdbc-url", URL), "--limit must be");
  }

  @Test
  @DatabaseIndependent
  void badSchemaArgumentsAreAUsageError() {
    assertUsageError(Cli.raw("schema"), "Missing required subcommand");
    assertUsageError(
        Cli.raw("schema", "print", "--from", "1", "--jdbc-url", URL), "--from needs --dialect");
    assertUsageError(Cli.raw("schema", "print", "--dialect", "oracle"), "unknown dialect 'oracle'");
    assertUsageError(
        Cli.raw(
            "schema",
            "print",
            "--dialect",
            "h2",
            "--from",
            String.valueOf(SchemaInstaller.VERSION + 1)),
        "--from must be 0.." + SchemaInstaller.VERSION + ",");
    assertUsageError(
        Cli.rawWithoutEnvironment("schema", "print", "--dialect", "h2", "--prefix", "Bad-"),
        "--prefix");
    assertUsageError(Cli.rawWithoutEnvironment("schema", "apply"), "no database");
  }

  @Test
  @DatabaseIndependent
  void missingConnectionSettingsAreAUsageError() {
    assertUsageError(Cli.rawWithoutEnvironment("journal", "stats"), "no database");
    assertUsageError(
        Cli.raw("journal", "stats", "--config", dir.resolve("missing.properties").toString()),
        "--config");
    assertUsageError(Cli.raw("journal"), "Missing required subcommand");
    assertUsageError(Cli.raw(), "Missing required subcommand");
  }

  @Test
  @DatabaseIndependent
  void unreachableDatabaseIsExit3WithOneLineAndNoPassword() throws Exception {
    Path password = Files.writeString(dir.resolve("pw"), "s3cret-pw\n");
    Cli.Run run =
        Cli.raw(
            "journal",
            "stats",
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/none?password=s3cret-pw",
            "--user",
            "x",
            "--password-file",
            password.toString());
    assertThat(run.exitCode()).isEqualTo(TxmsgCli.DATABASE);
    assertThat(run.err().strip().lines()).hasSize(1);
    assertThat(run.err()).startsWith("txmsg: database error").doesNotContain("s3cret-pw");
  }

  @Test
  @DatabaseIndependent
  void configFileSuppliesTheConnection() throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("txmsg.properties"),
            "jdbc.url=jdbc:h2:mem:cfg;DB_CLOSE_DELAY=-1\njdbc.user=sa\njdbc.password=\n");
    // The schema is missing: the database answers, so this proves the settings were used.
    Cli.Run run = Cli.raw("journal", "stats", "--config", config.toString());
    assertThat(run.exitCode()).isEqualTo(TxmsgCli.DATABASE);
    assertThat(run.err()).contains("database error").contains("TXMSG_JOURNAL");
  }

  @ParameterizedTest
  @MethodSource(DB)
  void missingSchemaIsADatabaseError(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      Cli.Run run = new Cli(db, dir).run("journal", "list");
      assertThat(run.exitCode()).isEqualTo(TxmsgCli.DATABASE);
      assertThat(run.err().strip().lines()).hasSize(1);
      assertThat(run.err()).startsWith("txmsg: database error").doesNotContain("\tat ");
    }
  }
}
