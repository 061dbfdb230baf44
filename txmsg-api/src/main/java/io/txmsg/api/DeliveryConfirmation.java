package io.txmsg.api;

/**
 * How journal rows become SENT. The default depends on the {@link DeliveryMode}: {@link #CONSUMER}
 * for {@link DeliveryMode#HALF_MESSAGE} ({@link #BROKER_ACK} over remoting when the store's brokers
 * are declared durable), {@link #SEND_OK} for {@link DeliveryMode#OUTBOX} and CDC.
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
   * {@link DeliveryMode#HALF_MESSAGE} over the remoting transport only; the default there for a
   * store whose brokers are declared durable ({@code brokersDurable}). The commit is sent
   * synchronously and the row becomes SENT (in batches, off the caller's thread) when the broker
   * answers SUCCESS: it found the half message and appended the final message on its master. No
   * confirm group runs.
   *
   * <p>The window: SUCCESS is answered before the flush and the replication, and also when they
   * time out, so only a broker with synchronous flush (and synchronous replication where a replica
   * can take over) keeps what it acknowledged. On an async-flush broker that lost the half message
   * in a crash, the offset can hold another half message of the same group, which the commit then
   * commits and answers SUCCESS for: the event, marked SENT, is lost. Hence the default only for
   * brokers declared durable; elsewhere choose {@link #CONSUMER}.
   *
   * <p>A commit not answered SUCCESS (a timeout, a lost answer, an error) leaves the row PENDING;
   * the check-back and the reconciler finish it. A row committed by a check-back gets no answer
   * (the client answers check-backs oneway) and is republished after {@code republishAfter}: one
   * duplicate, which consumers drop by event id.
   */
  BROKER_ACK,
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
