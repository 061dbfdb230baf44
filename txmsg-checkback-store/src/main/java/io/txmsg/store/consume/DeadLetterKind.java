package io.txmsg.store.consume;

/** {@code dead_letter.kind}. Stored by name: the names are part of the schema. */
public enum DeadLetterKind {
  /** An event that was parked; replayable. */
  MESSAGE,
  /** A second payload under an eventId already consumed with another hash; never replayed. */
  CONFLICT
}
