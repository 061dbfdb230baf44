package io.txmsg.api;

/**
 * A check-back answer. {@link #UNKNOWN} means "ask again later": the broker re-checks after its
 * check interval and, after its check maximum, gives the half message up (the reconciler still
 * publishes a committed row). UNKNOWN is always safe; ROLLBACK must only be answered when the
 * attempt can never commit.
 */
public enum Resolution {
  COMMIT,
  ROLLBACK,
  UNKNOWN
}
