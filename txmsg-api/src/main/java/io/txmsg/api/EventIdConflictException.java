package io.txmsg.api;

/**
 * The eventId was already committed with a DIFFERENT payload hash: the caller reused an eventId for
 * another event. Nothing of this attempt was committed (the action did not run or was rolled back)
 * and its half message was rolled back. Not retryable: fix the eventId derivation.
 */
public class EventIdConflictException extends NotCommittedException {
  private static final long serialVersionUID = 1L;
  private final String eventId;

  public EventIdConflictException(String eventId, String existingHash, String newHash) {
    super(
        "eventId "
            + eventId
            + " was already committed with payload hash "
            + existingHash
            + "; this attempt has hash "
            + newHash
            + ": an eventId must identify exactly one event");
    this.eventId = eventId;
  }

  public String eventId() {
    return eventId;
  }
}
