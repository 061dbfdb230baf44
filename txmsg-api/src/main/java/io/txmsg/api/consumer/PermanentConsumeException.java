package io.txmsg.api.consumer;

/**
 * Thrown by a handler (or a command executor) to reject an event for good: the transaction rolls
 * back and the event is parked at once with this message as its reason, never retried by the
 * broker. Operators can replay it after a fix.
 */
public class PermanentConsumeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PermanentConsumeException(String message) {
    super(message);
  }

  public PermanentConsumeException(String message, Throwable cause) {
    super(message, cause);
  }
}
