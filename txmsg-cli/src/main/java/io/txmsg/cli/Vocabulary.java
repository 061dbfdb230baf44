package io.txmsg.cli;

/**
 * The status and reason values stored in the txmsg tables. Filters are typed with these enums so
 * that a misspelt value is a usage error listing the valid ones, instead of a query that silently
 * matches nothing during an incident.
 */
final class Vocabulary {
  private Vocabulary() {}

  /** txmsg_journal.status. */
  enum JournalStatus {
    PENDING,
    SENDING,
    RETRY,
    SENT,
    ROLLED_BACK,
    DEAD
  }

  /** txmsg_dead_letter.status. */
  enum DeadLetterStatus {
    PARKED,
    REPLAY_REQUESTED,
    REPLAYED,
    DISCARDED
  }

  /** txmsg_dead_letter.kind. */
  enum DeadLetterKind {
    MESSAGE,
    CONFLICT
  }

  /** txmsg_dead_letter.reason. */
  enum DeadLetterReason {
    PERMANENT_ERROR,
    MAX_ATTEMPTS,
    NO_HANDLER,
    MALFORMED_ENVELOPE,
    UNDECODABLE_PAYLOAD,
    PAYLOAD_HASH_MISMATCH,
    TOO_OLD,
    GAP,
    BROKER_DLQ,
    CONFLICT
  }
}
