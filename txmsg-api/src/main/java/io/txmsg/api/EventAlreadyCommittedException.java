package io.txmsg.api;

/**
 * {@link TxMessageTemplate#publish}: the eventId was already committed by an earlier call with the
 * same payload hash (an idempotent retry). This call wrote nothing that will be delivered (its
 * attempt is recorded ROLLED_BACK in the caller's transaction and its half message, if any, was
 * rolled back); the caller's transaction is NOT doomed by it: the caller may catch it and commit
 * the rest of its work, or let it roll the transaction back. The earlier event is delivered as it
 * would have been anyway.
 */
public class EventAlreadyCommittedException extends TxMessagingException {
  private static final long serialVersionUID = 1L;
  private final String eventId;
  private final String committedAttemptId;

  public EventAlreadyCommittedException(String eventId, String committedAttemptId) {
    super(
        "eventId "
            + eventId
            + " is already committed (by attempt "
            + committedAttemptId
            + ", same payload hash): this publish adds nothing; the transaction may still commit");
    this.eventId = eventId;
    this.committedAttemptId = committedAttemptId;
  }

  public String eventId() {
    return eventId;
  }

  /** The attempt that committed the event first. */
  public String committedAttemptId() {
    return committedAttemptId;
  }
}
