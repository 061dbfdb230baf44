package io.txmsg.cdc;

import io.txmsg.api.PublishException;

/**
 * What the relay reports as it runs: the hook for metrics and health (every method has a no-op
 * default; the relay logs each event itself). Called on the relay's own threads: an implementation
 * must return quickly and must not throw (what it throws is logged and ignored).
 */
public interface CdcRelayListener {
  /** This instance took the store's lease ({@code generation}) and starts reading the log. */
  default void leaseAcquired(String storeId, long generation) {}

  /**
   * This instance no longer holds the lease (taken over, or not renewed in time); it stopped
   * sending before it found out, or at the latest when its own lease time ran out.
   */
  default void leaseLost(String storeId, long generation) {}

  /**
   * The relay could not resume from its stored position (PostgreSQL: the slot was dropped or
   * invalidated; MariaDB/MySQL: the binlog file of the offset was purged, or the schema history is
   * gone) and restarts at the current end of the log. Rows committed in between are not relayed:
   * the reconciler's per-row fallback sends them.
   */
  default void cannotResume(String storeId, String reason) {}

  /** {@code count} rows were sent and the broker accepted each (SEND_OK). */
  default void relayed(String storeId, int count) {}

  /**
   * A send failed with a retryable error; the relay stays at this row and sends it again after
   * {@code retryInMillis}.
   */
  default void sendFailed(
      String eventId, PublishException error, int attempt, long retryInMillis) {}

  /** The broker refused a row for good: it is DEAD, and later FIFO rows of its aggregate wait. */
  default void dead(String eventId, PublishException error) {}

  /**
   * A FIFO row was not sent because a lower version of its aggregate is unsent or DEAD, or another
   * row of its message group is in flight elsewhere; it stays PENDING for the reconciler.
   */
  default void heldBack(String eventId) {}

  /** The engine stopped with an error; the relay restarts it after {@code retryInMillis}. */
  default void engineFailed(String storeId, Throwable error, long retryInMillis) {}
}
