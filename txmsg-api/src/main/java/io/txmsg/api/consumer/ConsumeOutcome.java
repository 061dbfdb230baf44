package io.txmsg.api.consumer;

/** What became of one delivery; also the {@code outcome} tag of the txmsg.consume metric. */
public enum ConsumeOutcome {
  /** The handler ran and its transaction committed. */
  APPLIED,
  /** Already applied (or skipped, or parked) with the same payload hash: acked, not run again. */
  DUPLICATE,
  /** The version guard found an aggregate version not newer than the last applied: skipped. */
  STALE,
  /** The same eventId arrived with a different payload hash: a conflict dead letter, not run. */
  CONFLICT,
  /** Parked in the dead-letter table with a reason; acked. */
  PARKED,
  /** Not applied this time; the broker redelivers after its backoff. */
  RETRY,
  /** An event type the group configuration lists as ignored: acked without a handler. */
  IGNORED
}
