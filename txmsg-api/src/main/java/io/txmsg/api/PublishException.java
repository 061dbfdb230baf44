package io.txmsg.api;

/**
 * The broker did not take a message. From {@link TxMessageTemplate#execute}: the half message could
 * not be sent, so the local transaction was NOT run: no fact, no event. (Transports also report
 * failed republishes to the reconciler this way.) {@link #retryable()} tells whether the broker
 * error was transient (timeout, throttling, unavailable) or permanent (missing topic, permission,
 * too large, wrong topic type).
 */
public class PublishException extends NotCommittedException {
  private static final long serialVersionUID = 1L;
  private final boolean retryable;
  private final String errorCode;

  public PublishException(String message, String errorCode, boolean retryable, Throwable cause) {
    super(message, cause);
    this.errorCode = errorCode;
    this.retryable = retryable;
  }

  public boolean retryable() {
    return retryable;
  }

  /** A short, stable code (e.g. {@code TOPIC_NOT_FOUND}, {@code TIMEOUT}). */
  public String errorCode() {
    return errorCode;
  }
}
