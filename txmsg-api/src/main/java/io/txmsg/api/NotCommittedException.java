package io.txmsg.api;

/**
 * {@link TxMessageTemplate#execute} did not commit: the business fact is not in the database and
 * the event will never be delivered. Retrying the business command (with the same eventId) is safe.
 * Subclasses say why; {@link #getCause()} carries what the database or broker reported.
 */
public class NotCommittedException extends TxMessagingException {
  private static final long serialVersionUID = 1L;

  public NotCommittedException(String message) {
    super(message);
  }

  public NotCommittedException(String message, Throwable cause) {
    super(message, cause);
  }
}
