package io.txmsg.boot;

import java.time.Instant;

/**
 * Where a txmsg runtime of the application (the producer, the consumers) stands: what the {@code
 * txmsg} health indicator shows and what {@code execute} says while the producer has not started.
 *
 * @param state where the runtime stands
 * @param since when it entered this state (for {@link State#RETRYING}: the first failed attempt)
 * @param attempts start attempts so far
 * @param lastFailure the last attempt's failure, or null
 */
public record TxmsgRuntimeStatus(State state, Instant since, int attempts, Throwable lastFailure) {

  /** Where a runtime stands. */
  public enum State {
    /** Not started yet, or stopped with the context. */
    STOPPED,
    /** Running. */
    RUNNING,
    /** The broker could not be reached (or refused): trying again every retry interval. */
    RETRYING,
    /** Gave up: a failure that another attempt would not fix (see {@code lastFailure}). */
    FAILED
  }

  /** "RETRYING since ... (3 attempts); last failure: ..." for messages. */
  public String describe() {
    StringBuilder b = new StringBuilder(state.name()).append(" since ").append(since);
    b.append(" (").append(attempts).append(attempts == 1 ? " attempt" : " attempts").append(')');
    if (lastFailure != null && state != State.RUNNING) {
      b.append("; last failure: ").append(lastFailure);
    }
    return b.toString();
  }
}
