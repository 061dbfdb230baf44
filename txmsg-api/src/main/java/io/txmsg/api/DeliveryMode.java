package io.txmsg.api;

/**
 * How a producer publishes the primary event of {@code execute}. Each journal row records how it is
 * (re)published, so a store that switches modes strands nothing: rows written in the other mode are
 * still republished their own way by the reconciler.
 */
public enum DeliveryMode {
  /**
   * Default: a half message before the local transaction, committed after it; the broker's
   * check-back resolves a producer that died in between (docs/architecture.md, "Producer:
   * execute"). Needs TRANSACTION topics; cannot be FIFO.
   */
  HALF_MESSAGE,
  /**
   * No half message, no check-back: the journal row is written in the local transaction and sent
   * with one synchronous normal or FIFO send after commit; what is not sent then is sent by the
   * reconciler after {@code publishAfter}. Needs NORMAL or FIFO topics. Phantom events are
   * impossible (nothing is sent before commit); the delivery guarantee depends on {@link
   * DeliveryConfirmation}.
   */
  OUTBOX
}
