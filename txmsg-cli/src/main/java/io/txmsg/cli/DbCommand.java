package io.txmsg.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Base of every command that reads the database: the connection options, {@code --json}, and the
 * mapping of failures to exit codes. Failures are caught here rather than in an execution exception
 * handler so that the behaviour is the same however the CommandLine was built (tests build their
 * own).
 */
abstract class DbCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connection;

  @Option(names = "--json", description = "Print JSON instead of an aligned table.")
  boolean json;

  @Override
  public final Integer call() {
    validate();
    if (offline()) {
      try {
        return run(null, new Output(out(), json));
      } catch (ParameterException e) {
        throw e;
      } catch (Exception e) {
        err().println("txmsg: " + Errors.oneLine(e, null));
        err().flush();
        return TxmsgCli.USAGE;
      } finally {
        out().flush();
      }
    }
    try (Database db = connection.open()) {
      return run(db, new Output(out(), json));
    } catch (ParameterException e) {
      throw e;
    } catch (Exception e) {
      err().println("txmsg: " + Errors.oneLine(e, connection.secret()));
      err().flush();
      return TxmsgCli.DATABASE;
    } finally {
      out().flush();
    }
  }

  /** Checks arguments before any connection is opened; throws {@link #usage} on a bad one. */
  void validate() {}

  /**
   * True when this invocation answers without a database ({@code schema print --dialect}): then
   * {@link #run} gets a null {@link Database}.
   */
  boolean offline() {
    return false;
  }

  abstract int run(Database db, Output out) throws Exception;

  ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
