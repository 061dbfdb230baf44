package io.txmsg.api;

/**
 * The outcome of {@link TxMessageTemplate#execute}.
 *
 * @param outcome {@link Outcome#COMMITTED}: this call committed the fact and the journal row;
 *     {@link Outcome#ALREADY_COMMITTED}: an earlier attempt committed this eventId with the same
 *     payload, the action was not run again and {@code value} is null
 * @param value the action's result (null for ALREADY_COMMITTED)
 * @param eventId the event
 * @param attemptId this call's attempt
 * @param halfCommitAcknowledged whether the proxy accepted the commit of the half message; false is
 *     not a failure (check-back and the reconciler deliver it), and true is not delivery
 */
public record TxResult<R>(
    Outcome outcome, R value, String eventId, String attemptId, boolean halfCommitAcknowledged) {

  /** What happened to the fact. */
  public enum Outcome {
    COMMITTED,
    ALREADY_COMMITTED
  }

  /** This call committed the fact. */
  public static <R> TxResult<R> ofCommitted(
      R value, String eventId, String attemptId, boolean halfCommitAcknowledged) {
    return new TxResult<>(Outcome.COMMITTED, value, eventId, attemptId, halfCommitAcknowledged);
  }

  /** An earlier attempt committed this eventId with the same payload. */
  public static <R> TxResult<R> ofAlreadyCommitted(String eventId, String attemptId) {
    return new TxResult<>(Outcome.ALREADY_COMMITTED, null, eventId, attemptId, false);
  }

  public boolean alreadyCommitted() {
    return outcome == Outcome.ALREADY_COMMITTED;
  }
}
