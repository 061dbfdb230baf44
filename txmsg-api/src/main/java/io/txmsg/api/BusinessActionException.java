package io.txmsg.api;

/**
 * The {@link TransactionalBusinessAction} threw a checked exception (its cause). The local
 * transaction was rolled back, the attempt recorded ROLLED_BACK and the half message rolled back.
 * Unchecked exceptions of the action are rethrown as they are.
 */
public class BusinessActionException extends NotCommittedException {
  private static final long serialVersionUID = 1L;

  public BusinessActionException(Throwable cause) {
    super("business action failed: " + cause, cause);
  }
}
