package io.txmsg.api;

/**
 * {@link TxMessageTemplate#execute} was called inside an active transaction of the caller. It must
 * commit its own local transaction before committing the half message, so joining the caller's
 * would publish an event before the caller commits. Thrown before any side effect.
 */
public class ActiveTransactionException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public ActiveTransactionException(String message) {
    super(message);
  }
}
