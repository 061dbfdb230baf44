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
  OUTBOX,
  /**
   * The journal row is written in the local transaction exactly as in {@link #OUTBOX} (same
   * idempotency point and self-check), and nothing is sent on the caller's thread: a CDC relay
   * (module {@code txmsg-cdc}, {@code CdcRelay}) reads the committed insert from the database's own
   * log and sends it, in commit order, and records it SENT from SEND_OK. A row still not SENT
   * {@code cdcFallbackAfter} after it was created is sent by the reconciler, whatever the relay's
   * state (duplicates are possible then; consumers absorb them). Needs NORMAL or FIFO topics and
   * PostgreSQL or MariaDB (H2 has no log to read: refused at build).
   */
  CDC
}
