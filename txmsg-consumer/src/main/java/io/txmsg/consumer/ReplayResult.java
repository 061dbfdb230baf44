package io.txmsg.consumer;

/**
 * What one replay of a parked event did.
 *
 * @param status REPLAYED (the handler applied it), SKIPPED_STALE (the version guard found it stale;
 *     the dead letter is closed), NOT_REPLAYABLE (no parked dead letter: applied meanwhile,
 *     replayed already, or a conflict, which can only be discarded), FAILED (the handler failed
 *     again; the dead letter stays parked with the new error)
 */
public record ReplayResult(Status status, String message) {
  /** See {@link ReplayResult}. */
  public enum Status {
    REPLAYED,
    SKIPPED_STALE,
    DUPLICATE,
    NOT_REPLAYABLE,
    FAILED
  }
}
