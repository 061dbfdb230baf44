package io.txmsg.cli;

import io.txmsg.cli.DlqCommand.TimeBound;
import io.txmsg.cli.DlqCommand.TimeBoundConverter;
import picocli.CommandLine.Option;

/** The dead-letter filters {@code dlq list} and {@code replay} share (a picocli mixin). */
final class DeadLetterFilter {
  @Option(names = "--event-type", paramLabel = "<type>", description = "Only this event type.")
  String eventType;

  @Option(names = "--business-key", paramLabel = "<key>", description = "Only this business key.")
  String businessKey;

  @Option(
      names = "--since",
      paramLabel = "<time>",
      converter = TimeBoundConverter.class,
      description = "Parked at or after: a duration ago (2h) or a time (2024-05-01T10:00:00Z).")
  TimeBound since;

  @Option(
      names = "--until",
      paramLabel = "<time>",
      converter = TimeBoundConverter.class,
      description = "Parked before: a duration ago or a time.")
  TimeBound until;
}
