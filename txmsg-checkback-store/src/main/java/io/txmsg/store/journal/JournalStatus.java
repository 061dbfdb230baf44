package io.txmsg.store.journal;

/**
 * {@code journal.status}. Stored by name: the names are part of the schema and never change. The
 * transitions are the statements of JournalMapper.xml.
 */
public enum JournalStatus {
  /** Committed; the half message was committed or is about to be; waits for confirmation. */
  PENDING,
  /** Claimed by a reconciler round (owner token and lease) while it republishes. */
  SENDING,
  /** A republish failed retryably; due again at next_retry_at. */
  RETRY,
  /** Delivery confirmed (terminal, archivable). */
  SENT,
  /** Republishing failed permanently or the row got too old; waits for an operator re-queue. */
  DEAD
}
