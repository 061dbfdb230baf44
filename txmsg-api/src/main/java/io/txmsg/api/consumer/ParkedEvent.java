package io.txmsg.api.consumer;

/**
 * An event that was just parked: its consume-log row is PARKED and its dead letter (kind MESSAGE)
 * is written. {@code (consumerGroup, eventId)} is the key operators use for it: {@code txmsg dlq
 * show --group <consumerGroup> <eventId>}, {@code TxConsumers.replay(group, eventId, requestId)}.
 *
 * @param consumerGroup the group that parked it
 * @param eventId the event's id; for a message without a readable eventId the placeholder {@code
 *     msg:<broker message id>} it was parked under
 * @param eventType the event type, or null when the envelope had none readable
 * @param reason the park reason as stored in the dead letter: MALFORMED_ENVELOPE,
 *     PAYLOAD_HASH_MISMATCH, NO_HANDLER, TOO_OLD, UNDECODABLE_PAYLOAD, GAP, PERMANENT_ERROR,
 *     MAX_ATTEMPTS or BROKER_DLQ
 * @param detail the error message stored with it (the exception's message or why it was parked);
 *     may hold text from the message itself: escape it before logging ({@code
 *     io.txmsg.api.LogSafe})
 * @param deliveryAttempt the delivery attempt that parked it (0 for a replay)
 */
public record ParkedEvent(
    String consumerGroup,
    String eventId,
    String eventType,
    String reason,
    String detail,
    int deliveryAttempt) {}
