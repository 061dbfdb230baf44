package io.txmsg.api;

/**
 * The check-back fenced this attempt (it answered ROLLBACK to the broker while this producer was
 * stalled), so the local transaction was rolled back: no fact, no event. Safe to retry the business
 * command with the same eventId.
 */
public class AttemptFencedException extends NotCommittedException {
  private static final long serialVersionUID = 1L;

  public AttemptFencedException(String eventId, String attemptId) {
    super(
        "attempt "
            + attemptId
            + " of eventId "
            + eventId
            + " was fenced by a check-back: nothing was committed, the command may be retried");
  }
}
