package io.txmsg.store.consume;

/**
 * {@code command.status}. Stored by name: the names are part of the schema. (The due condition in
 * CommandMapper.xml also accepts 'UNKNOWN', which no code writes.)
 */
public enum CommandStatus {
  /** Recorded by a handler, or retrying; due at next_attempt_at. */
  PENDING,
  /** Claimed by a dispatcher (owner token and lease) while it executes. */
  SENDING,
  /** Executed (terminal). */
  DONE,
  /** No executor, a permanent failure or too many attempts; waits for an operator. */
  PARKED
}
