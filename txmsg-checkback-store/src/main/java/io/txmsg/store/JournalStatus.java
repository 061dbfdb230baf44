package io.txmsg.store;

/**
 * Publication status of a journal row. Every status means the fact is committed; only DEAD needs a
 * person (publication failed permanently).
 */
public enum JournalStatus {
  /** Committed; awaiting delivery confirmation (or republish once next_retry_at passes). */
  PENDING,
  /** Claimed by a reconciler (owner_token, lease_until) and being republished. */
  SENDING,
  /** Seen on its topic by the store's confirm consumer (or acknowledged, in PROXY_ACK mode). */
  SENT,
  /** A republish failed transiently; retried at next_retry_at with backoff. */
  RETRY,
  /** Publication failed permanently (missing topic, permission, too large, TOO_OLD). */
  DEAD
}
