package io.txmsg.cli;

import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code txmsg} operations tool: inspect the journal, consume log and dead letters, trace one
 * event through every table, archive terminal rows, check and apply the schema version. Read-only
 * except {@code archive}, {@code journal requeue} and {@code replay}, which need {@code --reason},
 * {@code schema apply}, and {@code cdc reset}, which needs {@code --yes}.
 *
 * <p>Exit codes: 0 ok, 1 findings (a threshold exceeded, a row not found), 2 usage error, 3
 * database error. Errors are one line on stderr, never a stack trace: this runs in incident scripts
 * and cron jobs that parse its output.
 */
@Command(
    name = "txmsg",
    mixinStandardHelpOptions = true,
    scope = CommandLine.ScopeType.INHERIT,
    version = "txmsg 0.1.0",
    description =
        "Operate txmsg: journal, consume log, dead letters, trace, archive, schema, CDC relay.",
    subcommands = {
      JournalCommand.class,
      TraceCommand.class,
      DlqCommand.class,
      ReplayCommand.class,
      ArchiveCommand.class,
      ArchiveRunsCommand.class,
      SchemaCommand.class,
      CdcCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:findings (threshold exceeded, row not found, schema not current)",
      "2:usage error",
      "3:database error"
    },
    footer = {
      "",
      "Connection settings, first found wins: --jdbc-url / --user / --password-file;",
      "--config <file> with jdbc.url, jdbc.user, jdbc.password; the environment",
      "TXMSG_JDBC_URL, TXMSG_USER, TXMSG_PASSWORD."
    })
public final class TxmsgCli extends CommandGroup {
  /** Success. */
  public static final int OK = 0;

  /** The command ran and found something the operator asked to be told about. */
  public static final int FINDINGS = 1;

  /** Bad arguments or settings; nothing was done. */
  public static final int USAGE = 2;

  /** The database failed or could not be reached. */
  public static final int DATABASE = 3;

  private final Function<String, String> environment;

  /** The CLI reading TXMSG_* settings from the process environment. */
  public TxmsgCli() {
    this(System::getenv);
  }

  /** The CLI with another environment (tests: the result must not depend on the caller's). */
  TxmsgCli(Function<String, String> environment) {
    this.environment = environment;
  }

  Function<String, String> environment() {
    return environment;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new TxmsgCli()).execute(args));
  }
}
