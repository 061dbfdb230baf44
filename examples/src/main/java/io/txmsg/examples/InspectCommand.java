package io.txmsg.examples;

/**
 * The "inspect it" command the demo prints: the txmsg CLI's {@code journal stats} on the demo's
 * database, to be copied into a shell as printed. It carries everything the CLI needs to log in
 * that it may show: the URL and the user (the demo's H2 database has user {@code sa}; without it H2
 * refuses the login). A password is never printed: the CLI reads it from {@code --password-file} or
 * {@code TXMSG_PASSWORD}, and the demo prints {@link #passwordHint()} on a line of its own when
 * there is one.
 */
final class InspectCommand {
  static final String CLI = "java -jar txmsg-cli/target/txmsg.jar";

  private InspectCommand() {}

  /** The command line for a database at {@code url}, logged in as {@code user} (may be null). */
  static String journalStats(String url, String user) {
    StringBuilder cmd = new StringBuilder(CLI).append(" journal stats --jdbc-url ");
    cmd.append(shellQuote(url));
    if (user != null) {
      cmd.append(" --user ").append(shellQuote(user));
    }
    return cmd.toString();
  }

  /** What to add for a database with a password, which the command line never shows. */
  static String passwordHint() {
    return "(give the password in a file with --password-file <file>, or in TXMSG_PASSWORD)";
  }

  /** A single-quoted word for a POSIX shell; a quote inside is written {@code '\''}. */
  static String shellQuote(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
