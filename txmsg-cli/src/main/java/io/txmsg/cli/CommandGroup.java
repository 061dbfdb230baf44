package io.txmsg.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands. Invoked alone it is a usage error (exit 2 with the
 * usage), not picocli's default "not a Runnable" stack trace.
 */
abstract class CommandGroup implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing required subcommand");
  }
}
