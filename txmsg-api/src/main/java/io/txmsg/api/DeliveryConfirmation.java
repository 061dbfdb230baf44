package io.txmsg.api;

/**
 * How journal rows become SENT. The default depends on the {@link DeliveryMode}: {@link #CONSUMER}
 * for {@link DeliveryMode#HALF_MESSAGE}, {@link #SEND_OK} for {@link DeliveryMode#OUTBOX}.
 */
public enum DeliveryConfirmation {
  /**
   * The safe mode, available in both delivery modes: a confirm consumer group per store sees the
   * message on its topic and marks the row SENT. A lost commit, a half message the broker gave up
   * on or lost, a message lost before the confirm group read it: all leave the row unconfirmed, and
   * the reconciler republishes it ({@code republishAfter} after the last send). What it does not
   * cover: a broker with async flush or async replication can lose a message after the confirm
   * group read it (a crash before the flush, a failover to a replica that had not copied it); the
   * row is SENT and other groups that had not read it never get it. Only the broker's sync flush
   * and synchronous replication close that window.
   */
  CONSUMER,
  /**
   * {@link DeliveryMode#HALF_MESSAGE} only. Cheaper: SENT as soon as the proxy accepts the
   * half-message commit. Leaves a window: the proxy→broker commit is oneway and a broker with async
   * flush can lose the half message, and a row marked SENT is never republished. Use only where
   * that loss is acceptable.
   */
  PROXY_ACK,
  /**
   * {@link DeliveryMode#OUTBOX} only, and its default: SENT once the broker answered the
   * synchronous send with SEND_OK, recorded in batches off the caller's thread. The window: SEND_OK
   * means the broker accepted the message, not that it is durable. A broker with async flush that
   * crashes, or an async-replicated master that fails over, loses acknowledged messages, and a row
   * marked SENT is never republished. With sync flush and sync replication (or a quorum) the window
   * closes; otherwise choose {@link #CONSUMER}. Rows of {@code TxContext.publish} in a {@link
   * DeliveryMode#HALF_MESSAGE} store under {@link #PROXY_ACK} are confirmed the same way.
   */
  SEND_OK;

  /** Whether the producer marks rows SENT on the broker's acknowledgement (no confirm group). */
  public boolean onBrokerAck() {
    return this != CONSUMER;
  }
}
