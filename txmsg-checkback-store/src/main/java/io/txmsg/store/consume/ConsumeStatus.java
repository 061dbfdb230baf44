package io.txmsg.store.consume;

/** {@code consume_log.status}. Stored by name: the names are part of the schema. */
public enum ConsumeStatus {
  /** Claimed by the delivery whose local transaction is running (or a replay of a parked row). */
  PROCESSING,
  /** The handler applied the event (terminal, archivable). */
  SUCCESS,
  /** The version guard found a newer aggregate version already applied (terminal, archivable). */
  SKIPPED_STALE,
  /** Parked with a dead letter; waits for a replay. */
  PARKED
}
