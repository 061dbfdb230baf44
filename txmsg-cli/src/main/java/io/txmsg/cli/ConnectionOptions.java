package io.txmsg.cli;

import io.txmsg.store.TablePrefix;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Where the txmsg tables are. Each setting comes from the first of: the command-line option, the
 * {@code --config} properties file, the environment. There is deliberately no password option: a
 * command line is visible to every user of the machine ({@code ps}), so the password comes from a
 * file, the config file or {@code TXMSG_PASSWORD}, and is never printed.
 */
final class ConnectionOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--jdbc-url",
      paramLabel = "<url>",
      description = "JDBC URL (jdbc:h2:..., jdbc:mariadb://..., jdbc:postgresql://...).")
  String jdbcUrl;

  @Option(names = "--user", paramLabel = "<user>", description = "Database user.")
  String user;

  @Option(
      names = "--password-file",
      paramLabel = "<file>",
      description = "File holding the database password (first line).")
  Path passwordFile;

  @Option(
      names = "--config",
      paramLabel = "<file>",
      description = "Properties file with jdbc.url, jdbc.user, jdbc.password.")
  Path config;

  @Option(
      names = "--prefix",
      paramLabel = "<prefix>",
      defaultValue = TablePrefix.DEFAULT,
      description = "Table prefix (default: ${DEFAULT-VALUE}).")
  String prefix;

  /** The resolved password, kept to mask it in error messages; null before {@link #open()}. */
  private String password;

  /** The environment of the root command (the process environment unless a test gave another). */
  private Function<String, String> environment() {
    Object root = mixee.root().userObject();
    return root instanceof TxmsgCli cli ? cli.environment() : System::getenv;
  }

  /**
   * Resolves the settings and opens the database.
   *
   * @throws ParameterException when a setting is missing or unreadable (a usage error)
   */
  Database open() {
    prefix();
    Properties file = readConfig();
    Function<String, String> env = environment();
    String url = first(jdbcUrl, file.getProperty("jdbc.url"), env.apply("TXMSG_JDBC_URL"));
    if (url == null || url.isBlank()) {
      throw usage("no database: give --jdbc-url, --config <file> with jdbc.url, or TXMSG_JDBC_URL");
    }
    String u = first(user, file.getProperty("jdbc.user"), env.apply("TXMSG_USER"));
    password =
        first(readPasswordFile(), file.getProperty("jdbc.password"), env.apply("TXMSG_PASSWORD"));
    return new Database(url, u, password, prefix);
  }

  /**
   * The table prefix, validated.
   *
   * @throws ParameterException when it is not a valid prefix (a usage error)
   */
  String prefix() {
    try {
      return TablePrefix.validate(prefix);
    } catch (IllegalArgumentException e) {
      throw usage("--prefix: " + e.getMessage());
    }
  }

  /** The password, for masking; may be null. */
  String secret() {
    return password;
  }

  private Properties readConfig() {
    Properties p = new Properties();
    if (config != null) {
      try (Reader r = Files.newBufferedReader(config, StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (IOException e) {
        throw usage("--config: cannot read " + config + why(e));
      }
    }
    return p;
  }

  private String readPasswordFile() {
    if (passwordFile == null) {
      return null;
    }
    try {
      String text = Files.readString(passwordFile, StandardCharsets.UTF_8);
      int nl = text.indexOf('\n');
      // Only the line ending is stripped: spaces may belong to the password.
      return (nl < 0 ? text : text.substring(0, nl)).replace("\r", "");
    } catch (IOException e) {
      throw usage("--password-file: cannot read " + passwordFile + why(e));
    }
  }

  private static String why(IOException e) {
    if (e instanceof NoSuchFileException) {
      return " (no such file)";
    }
    return e instanceof AccessDeniedException ? " (permission denied)" : "";
  }

  private ParameterException usage(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null) {
        return v;
      }
    }
    return null;
  }
}
