package io.txmsg.transport;

import java.time.Instant;
import java.util.Map;

/**
 * One delivered (or replayed) event with its decoded envelope. {@code properties} are all the
 * message's properties as received: they are stored with a dead letter so that a replay sees the
 * same event.
 */
public record IncomingEvent(
    String eventId,
    String eventType,
    int eventVersion,
    String aggregateType,
    String aggregateId,
    long aggregateVersion,
    String businessKey,
    String payloadHash,
    Instant originTime,
    byte[] payload,
    Map<String, String> headers,
    Map<String, String> properties,
    String topic,
    String brokerMessageId,
    int deliveryAttempt) {}
