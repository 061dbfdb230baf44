package io.txmsg.transport;

/** The message cannot be an event: parked at once with {@link #reason()}, never retried. */
public final class MalformedEventException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String reason;

  public MalformedEventException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The park reason (MALFORMED_ENVELOPE, PAYLOAD_HASH_MISMATCH). */
  public String reason() {
    return reason;
  }
}
