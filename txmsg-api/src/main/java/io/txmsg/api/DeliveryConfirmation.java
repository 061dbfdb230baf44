package io.txmsg.api;

/** How journal rows become SENT. */
public enum DeliveryConfirmation {
  /**
   * Default and safe: a confirm consumer group per store sees the message on its topic and marks
   * the row SENT. A lost commit, a half message the broker gave up on or lost, all leave the row
   * unconfirmed, and the reconciler republishes it after {@code republishAfter}.
   */
  CONSUMER,
  /**
   * Cheaper: SENT as soon as the proxy accepts the half-message commit. Leaves a window: the
   * proxy→broker commit is oneway and a broker with async flush can lose the half message, and a
   * row marked SENT is never republished. Use only where that loss is acceptable.
   */
  PROXY_ACK
}
