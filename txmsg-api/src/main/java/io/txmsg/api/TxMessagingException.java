package io.txmsg.api;

/**
 * Base of every txmsg exception. Unchecked: the caller's business command decides whether to retry;
 * each subclass says what is known about the outcome.
 */
public class TxMessagingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TxMessagingException(String message) {
    super(message);
  }

  public TxMessagingException(String message, Throwable cause) {
    super(message, cause);
  }
}
