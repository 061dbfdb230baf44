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
   * Asks the broker to drop the message. The same caveats as {@link #commit()}: a lost rollback is
   * answered ROLLBACK by the check-back later.
   *
   * @throws PublishException when the transport reports a failure
   */
  void rollback() throws PublishException;
}
