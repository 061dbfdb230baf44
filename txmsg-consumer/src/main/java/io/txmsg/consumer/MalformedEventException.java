package io.txmsg.consumer;

/** The message cannot be an event: parked at once with {@link #reason()}, never retried. */
final class MalformedEventException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String reason;

  MalformedEventException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  String reason() {
    return reason;
  }
}
