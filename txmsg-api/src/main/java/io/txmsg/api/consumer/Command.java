package io.txmsg.api.consumer;

/**
 * An external side effect recorded by a handler, as its executor sees it.
 *
 * @param idempotencyKey {@code group:eventId:seq}, the same on every retry: send it to the external
 *     system so that a retried call is recognised there
 * @param attempt 1 for the first execution
 */
public record Command(
    String commandId,
    String idempotencyKey,
    String consumerGroup,
    String eventId,
    int seq,
    String commandType,
    byte[] payload,
    int attempt) {}
