package io.txmsg.producer;

import io.txmsg.api.TransactionRolledBackException;
import java.time.Duration;

/**
 * How far one execute's local transaction got: the stage a failure is settled by, the action's
 * context once it ran, and the transaction's deadline. Written and read by the one thread that runs
 * the transaction.
 */
final class Progress {
  /** Where the local transaction failed; decides how the failure is settled. */
  enum Stage {
    ATTEMPT_INSERT,
    JOURNAL_INSERT,
    ACTION,
    SELF_CHECK
  }

  private final Duration timeout;
  private final long deadline;
  private Stage stage;
  private ExecuteContext context;

  Progress(Stage first, Duration timeout) {
    this.stage = first;
    this.timeout = timeout;
    this.deadline = System.nanoTime() + timeout.toNanos();
  }

  Stage stage() {
    return stage;
  }

  void reached(Stage next) {
    this.stage = next;
  }

  /** The action's context; null when the transaction failed before the action. */
  ExecuteContext context() {
    return context;
  }

  /** The action's context, made when the action is about to run. */
  void contextOf(ExecuteContext context) {
    this.context = context;
  }

  /** The last check before commit in both modes: a transaction past its timeout is rolled back. */
  void failIfPastDeadline() {
    if (System.nanoTime() > deadline) {
      throw new TransactionRolledBackException(
          "local transaction exceeded " + timeout + "; rolled back", null);
    }
  }
}
