package io.txmsg.api.consumer;

import java.sql.Connection;
import java.time.Instant;
import java.util.Map;

/**
 * What a handler knows about the event it applies, and its two outputs besides its own writes: a
 * result reference (stored in the consume log and handed to duplicates) and commands for external
 * side effects (executed after commit with an idempotency key).
 */
public interface ConsumeContext {
  String consumerGroup();

  String eventId();

  String eventType();

  int eventVersion();

  String aggregateType();

  String aggregateId();

  long aggregateVersion();

  /** The producer's business key, or null. */
  String businessKey();

  /** When the producer committed the event. */
  Instant originTime();

  /** The broker's delivery attempt, 1 for the first delivery; 0 for an operator replay. */
  int deliveryAttempt();

  /** True when an operator replay runs this handler, not a broker delivery. */
  boolean replay();

  /** Application headers of the event. */
  Map<String, String> headers();

  /**
   * {@code group:eventId}: stable across redeliveries and replays of this event in this group. Use
   * it (or the per-command key {@link #recordCommand} returns) as the idempotency key of external
   * calls.
   */
  String idempotencyKey();

  /**
   * Records an external side effect to run after this transaction commits: it is stored in the
   * command outbox in the handler's transaction and executed by the command dispatcher, with
   * retries, by the executor registered for {@code commandType}.
   *
   * @return the command's idempotency key, {@code group:eventId:seq} (seq counts from 1 per event)
   */
  String recordCommand(String commandType, byte[] payload);

  /** A short reference to what the handler produced (e.g. a row id); stored in the consume log. */
  void resultRef(String resultRef);

  /**
   * The connection of the handler's transaction, for plain JDBC handlers. Spring users write
   * through their mappers instead; those join the same transaction.
   */
  Connection connection();

  /**
   * Declares failed statements this handler handles itself, by SQLState prefix (e.g. {@code "23"}).
   * By default a statement that fails on the handler transaction's connection during the handler
   * fails this delivery (rolled back, then retried or parked) even when the handler caught it; a
   * rollback to an earlier savepoint counts as recovered. See {@code TxContext} for PostgreSQL.
   */
  void ignoreFailedStatements(String... sqlStatePrefixes);
}
