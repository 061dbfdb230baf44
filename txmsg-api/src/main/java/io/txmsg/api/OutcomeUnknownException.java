package io.txmsg.api;

/**
 * Whether the local transaction committed is not known (commit() failed on the wire, or a zombie
 * session still holds the attempt key). The half message was left open on purpose: the broker's
 * check-back settles it from the database, and the event is published if and only if the fact was
 * committed. A retry with the same eventId is safe: it either commits or reports "already
 * committed".
 */
public class OutcomeUnknownException extends TxMessagingException {
  private static final long serialVersionUID = 1L;

  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
