package io.txmsg.store.journal;

/** State of a producer attempt row. */
public enum AttemptState {
  /** Written first in the attempt's local transaction: visible only once that commits. */
  COMMITTED,
  /** Written after the local transaction failed or rolled back: the attempt did not commit. */
  ROLLED_BACK,
  /** Written by a check-back for an attempt that never reached the database: it never can. */
  FENCED
}
