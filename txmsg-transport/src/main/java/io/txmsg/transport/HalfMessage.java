package io.txmsg.transport;

import io.txmsg.api.PublishException;

/**
 * A half (transactional) message the broker holds but does not deliver until it is committed. If
 * neither {@link #commit()} nor {@link #rollback()} reaches the broker, it asks the producer's
 * {@link CheckbackHandler} later.
 */
public interface HalfMessage {
  /** The broker's message id of the half message. */
  String messageId();

  /**
   * Asks the broker to deliver the message. Returning normally does NOT mean delivered: the commit
   * travels oneway between proxy (or client) and broker and may be lost; a thrown exception does
   * not mean it failed either. Both outcomes are settled by the check-back and the confirmation.
   *
   * @throws PublishException when the transport reports a failure (the outcome is unknown)
   */
  void commit() throws PublishException;

  /**
   * Commits and waits for the broker's own answer, where the transport can get one.
   *
   * <p>{@code true}: the broker that holds the half message answered SUCCESS, which means it found
   * the half message by its commit-log offset (checked only for producer group and offsets) and
   * appended the final, deliverable message on its master. It does NOT mean flushed or replicated:
   * a broker answers SUCCESS before its flush and its replication, and also when those time out. So
   * the answer proves delivery only on a broker with synchronous flush and, where a replica can
   * take over, synchronous replication. A repeated commit of the same half message is answered
   * SUCCESS again and writes the final message again (a duplicate that consumers drop by event id).
   *
   * <p>{@code false}: the transport has no such answer (gRPC: the proxy forwards the commit to the
   * broker oneway); the commit was sent as by {@link #commit()}.
   *
   * <p>The default sends {@link #commit()} and answers {@code false}.
   *
   * @throws PublishException when the commit was not answered SUCCESS: a timeout, a lost answer or
   *     an error code. The outcome is unknown (the final message may or may not exist); it is
   *     settled like a lost {@link #commit()}, by the check-back and the confirmation, never by
   *     declaring the event dead
   */
  default boolean commitAndConfirm() throws PublishException {
    commit();
    return false;
  }

  /**
   * Asks the broker to drop the message. The same caveats as {@link #commit()}: a lost rollback is
   * answered ROLLBACK by the check-back later.
   *
   * @throws PublishException when the transport reports a failure
   */
  void rollback() throws PublishException;
}
