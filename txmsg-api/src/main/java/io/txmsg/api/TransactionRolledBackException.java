package io.txmsg.api;

/**
 * The local transaction was rolled back by txmsg or by the database: a statement failed inside the
 * action (even one the action caught: see {@link TxContext#ignoreFailedStatements}), the pre-commit
 * self-check found the transaction already discarded (PostgreSQL aborts on any error, MariaDB rolls
 * back on a deadlock), txmsg's own journal or attempt statement failed, the local transaction
 * timeout passed, or commit() failed and the attempt was then proved not committed. Nothing was
 * committed and nothing is delivered; the cause says what happened.
 */
public class TransactionRolledBackException extends NotCommittedException {
  private static final long serialVersionUID = 1L;

  public TransactionRolledBackException(String message, Throwable cause) {
    super(message, cause);
  }
}
