package io.txmsg.api;

/**
 * {@link TxMessageTemplate#publish} found no transaction it can join: none is active (publish is
 * MANDATORY), its synchronization is not active, it is read-only, or the connection of txmsg's
 * DataSource is not bound to it (JTA, a JPA dialect that exposes no JDBC connection, a transaction
 * manager of another DataSource, or a connection in auto-commit). The message names what was found.
 * Thrown before any write or send: nothing was published, and the caller's transaction is
 * untouched.
 */
public class TransactionNotJoinableException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public TransactionNotJoinableException(String message) {
    super(message);
  }
}
