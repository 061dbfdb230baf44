package io.txmsg.api;

import java.sql.Connection;

/** What a {@link TransactionalBusinessAction} sees of the running local transaction. */
public interface TxContext {
  /** The event being published. */
  TxMessage message();

  /** The id of this attempt (a new one per {@code execute} call). */
  String attemptId();

  /**
   * The transaction's connection. Borrowed: never commit, roll back or close it. With Spring the
   * same connection is bound to the transaction, so MyBatis mappers use it too.
   */
  Connection connection();
}
