package io.txmsg.api;

import java.time.Instant;
import java.util.Map;

/**
 * What the broker's check-back tells about a half message.
 *
 * @param topic the destination topic
 * @param eventType the envelope's event type (null if the message has no txmsg envelope)
 * @param eventId the envelope's event id (null if absent)
 * @param attemptId the envelope's attempt id (null if absent)
 * @param storeId the store that sent it (null if absent)
 * @param checkTimes how often the broker has checked it so far, or -1 when not reported
 * @param bornTime when the half message was sent
 * @param messageId the broker's message id
 * @param properties all user properties of the message
 */
public record CheckbackRequest(
    String topic,
    String eventType,
    String eventId,
    String attemptId,
    String storeId,
    int checkTimes,
    Instant bornTime,
    String messageId,
    Map<String, String> properties) {}
