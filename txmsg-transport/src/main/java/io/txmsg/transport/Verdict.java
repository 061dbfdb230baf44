package io.txmsg.transport;

/** What a delivery handler answers to the transport for one message. */
public enum Verdict {
  /** The outcome is durable: the broker must not deliver it to this group again. */
  ACK,
  /**
   * Not handled: the broker redelivers it after the group's backoff (or moves it to the group's
   * dead-letter queue after its last attempt).
   */
  RETRY
}
