package io.txmsg.store.consume;

/**
 * {@code dead_letter.reason}: why an event was parked. Stored by name: the names are part of the
 * schema. MALFORMED_ENVELOPE and PAYLOAD_HASH_MISMATCH originate in the transport's envelope
 * decoder, which cannot depend on the store and carries them as text.
 */
public enum ParkReason {
  /** The handler threw an exception classified as permanent. */
  PERMANENT_ERROR,
  /** The handler kept failing until the delivery attempt at which the group parks. */
  MAX_ATTEMPTS,
  /** No handler for the event type in the group, after the group's attempts. */
  NO_HANDLER,
  /** The message is not a txmsg envelope (missing or invalid properties). */
  MALFORMED_ENVELOPE,
  /** The payload could not be deserialized into the handler's payload type. */
  UNDECODABLE_PAYLOAD,
  /** The payload hash in the envelope does not match the message. */
  PAYLOAD_HASH_MISMATCH,
  /** Older than the consume-log retention minus margin: a duplicate could not be recognised. */
  TOO_OLD,
  /** An aggregate version gap did not close within the handler's maximum wait. */
  GAP,
  /** The broker moved the message to the group's %DLQ% topic. */
  BROKER_DLQ,
  /** A conflict dead letter (kind CONFLICT). */
  CONFLICT
}
