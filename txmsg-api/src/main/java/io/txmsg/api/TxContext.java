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

  /**
   * Declares failed statements this action handles itself, by SQLState prefix: e.g. {@code "23"} to
   * catch a duplicate key and continue. By default any statement that fails on {@link
   * #connection()} (or, with Spring, on the connection bound to txmsg's transaction) during the
   * action fails the execute, whether or not the action caught it; a rollback to a savepoint set
   * before the failure (Spring NESTED) counts as recovered. On PostgreSQL a failed statement aborts
   * the whole transaction unless it ran under a savepoint: ignoring it then does not help, and the
   * execute still fails (nothing committed). Call it before the statements concerned.
   */
  void ignoreFailedStatements(String... sqlStatePrefixes);
}
