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

  /**
   * Publishes further events as part of this local transaction, in either delivery mode: each gets
   * its own journal row (its own eventId) in this transaction, so each exists exactly when the
   * business change commits, and is sent after commit with a plain (or FIFO) send, then by the
   * reconciler if that send did not happen. Their topics must be NORMAL or FIFO topics the producer
   * declares ({@code topics} in OUTBOX mode, {@code publishTopics} in either mode). They carry this
   * call's attempt id and the primary event's origin time.
   *
   * <p>A retry of the whole command (same primary eventId) finds the primary event committed and
   * does not run the action again, so these are not written twice; {@link
   * TxResult#publishedEventIds()} then lists the events the committed call published.
   *
   * @throws InvalidTxMessageException a message is invalid or its topic is not declared for it;
   *     nothing of this call was written
   * @throws TxMessagingException the journal insert failed (e.g. an eventId that already exists):
   *     the execute fails and rolls back, even if the action catches this
   */
  void publish(TxMessage... messages);
}
