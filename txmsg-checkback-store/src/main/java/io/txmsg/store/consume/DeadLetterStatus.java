package io.txmsg.store.consume;

/** {@code dead_letter.status}. Stored by name: the names are part of the schema. */
public enum DeadLetterStatus {
  /** Waiting for an operator. */
  PARKED,
  /** Selected by a replay request (replay_request_id) that has not reached it yet. */
  REPLAY_REQUESTED,
  /** Replayed successfully. */
  REPLAYED,
  /** Discarded: will not be replayed. */
  DISCARDED
}
