package io.txmsg.producer;

import io.txmsg.api.ActiveTransactionException;
import io.txmsg.api.AttemptFencedException;
import io.txmsg.api.BusinessActionException;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.OutcomeUnknownException;
import io.txmsg.api.PayloadHashes;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TxContext;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxMessagingException;
import io.txmsg.api.TxResult;
import io.txmsg.store.AttemptInsert;
import io.txmsg.store.AttemptMapper;
import io.txmsg.store.AttemptState;
import io.txmsg.store.AttemptWriter;
import io.txmsg.store.HeadersCodec;
import io.txmsg.store.JournalMapper;
import io.txmsg.store.JournalRow;
import io.txmsg.store.LocalTransactions;
import io.txmsg.store.SqlStates;
import io.txmsg.store.StatementFailures;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TxMessageTemplate}: the half-message protocol of docs/architecture.md ("The path of
 * one event", steps 1–8), over the transport port.
 *
 * <p>Half message first, then the local transaction (attempt row COMMITTED — the fence point;
 * journal row PENDING — the idempotency point; the action; a self-check of the attempt row as the
 * last statement), then the half-message commit. Every failure is settled from durable state, never
 * guessed: see {@link TxMessageTemplate} for what each exception means.
 */
public final class DefaultTxMessageTemplate implements TxMessageTemplate {
  private static final Logger log = LoggerFactory.getLogger(DefaultTxMessageTemplate.class);

  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final LocalTransactions transactions;
  private final TxmsgStore store;
  private final StoreTransactions storeTx;
  private final AttemptWriter attempts;
  private final PayloadSerializer serializer;
  private final PayloadSanitizer sanitizer;
  private final ProducerInterceptor interceptor;
  private final Set<String> topics;
  private final ProducerMetrics metrics;

  DefaultTxMessageTemplate(
      TxProducerSettings settings,
      ProducerChannel producer,
      LocalTransactions transactions,
      DataSource dataSource,
      TxmsgStore store,
      PayloadSerializer serializer,
      PayloadSanitizer sanitizer,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics) {
    this.metrics = metrics;
    this.settings = settings;
    this.producer = producer;
    this.transactions = transactions;
    this.store = store;
    this.storeTx = new StoreTransactions(dataSource, store);
    this.attempts = new AttemptWriter(dataSource, store);
    this.serializer = serializer;
    this.sanitizer = sanitizer;
    this.interceptor = interceptor;
    this.topics = settings.topics();
  }

  /** Where the local transaction failed; decides how the failure is settled. */
  private enum Stage {
    ATTEMPT_INSERT,
    JOURNAL_INSERT,
    ACTION,
    SELF_CHECK
  }

  @Override
  public <R> TxResult<R> execute(TxMessage message, TransactionalBusinessAction<R> action) {
    if (message == null) {
      throw new InvalidTxMessageException("message", "is required");
    }
    if (action == null) {
      throw new InvalidTxMessageException("action", "is required");
    }
    if (transactions.inActiveTransaction()) {
      // Joining would commit the half message before the caller's transaction commits.
      throw new ActiveTransactionException(
          "TxMessageTemplate.execute must not run inside an active transaction: it commits its own"
              + " local transaction before committing the half message");
    }
    // 1. Validate before any side effect.
    if (!topics.contains(message.topic())) {
      throw new InvalidTxMessageException(
          "topic",
          LogSafe.quote(message.topic())
              + " is not one of this producer's topics "
              + topics
              + " (declare it in the settings so its check-backs reach this producer)");
    }
    JournalRow row = journalRow(message);
    String attemptId = row.getAttemptId();
    String eventId = row.getEventId();

    // 3. Half message.
    HalfMessage half;
    try {
      half = producer.sendHalf(EnvelopeCodec.encode(row));
    } catch (PublishException e) {
      throw new PublishException(
          "half message for eventId " + eventId + " not sent: " + e.getMessage(),
          e.errorCode(),
          e.retryable(),
          e);
    }
    row.setBrokerMessageId(half.messageId());
    log.debug(
        "half message sent eventId={} attemptId={} messageId={}",
        eventId,
        attemptId,
        row.getBrokerMessageId());
    interceptor.afterHalfMessageSent(message, attemptId);

    // 4. Local transaction.
    Stage[] stage = {Stage.ATTEMPT_INSERT};
    long deadline = System.nanoTime() + settings.localTransactionTimeout().toNanos();
    R value;
    try {
      value =
          transactions.inTransaction(
              connection -> {
                try (SqlSession session = store.session(connection)) {
                  AttemptMapper attemptMapper = session.getMapper(AttemptMapper.class);
                  attemptMapper.insert(
                      attemptId, eventId, settings.storeId(), AttemptState.COMMITTED.name());
                  stage[0] = Stage.JOURNAL_INSERT;
                  session
                      .getMapper(JournalMapper.class)
                      .insert(row, settings.republishAfter().toMillis());
                  stage[0] = Stage.ACTION;
                  interceptor.beforeAction(message, attemptId);
                  StatementFailures failures = StatementFailures.of(connection);
                  failures.watch();
                  R r = action.execute(new Context(message, attemptId, connection, failures));
                  stage[0] = Stage.SELF_CHECK;
                  SQLException swallowed = failures.stop();
                  if (swallowed != null) {
                    // Caught by the action, seen by the detector: the same outcome on every
                    // database (docs/architecture.md, "Failed statements inside the action").
                    throw new TransactionRolledBackException(
                        "a statement failed inside the action of eventId "
                            + eventId
                            + " (SQLState "
                            + swallowed.getSQLState()
                            + ") and was not recovered; the local transaction was rolled back,"
                            + " nothing is committed",
                        swallowed);
                  }
                  // Last statement: a swallowed failure left PG aborted (this throws 25P02) or
                  // MariaDB rolled back and restarted (this finds no row).
                  String state = attemptMapper.selectStateForUpdate(attemptId);
                  if (!AttemptState.COMMITTED.name().equals(state)) {
                    throw new TransactionRolledBackException(
                        "pre-commit self-check failed for attempt "
                            + attemptId
                            + " (found "
                            + state
                            + "): the database discarded the transaction (a failed statement on"
                            + " PostgreSQL, a deadlock on MariaDB); nothing is committed",
                        null);
                  }
                  if (System.nanoTime() > deadline) {
                    throw new TransactionRolledBackException(
                        "local transaction exceeded "
                            + settings.localTransactionTimeout()
                            + "; rolled back",
                        null);
                  }
                  return r;
                }
              });
    } catch (LocalTransactions.WorkFailedException failed) {
      return afterWorkFailed(row, half, stage[0], failed.getCause());
    } catch (LocalTransactions.CommitFailedException commitFailed) {
      settleUnknownCommit(row, half, commitFailed.getCause());
      // 8. Committed, proved by the attempt row; the action's value went with the failed call.
      return TxResult.ofCommittedResultLost(eventId, attemptId, commitHalf(message, row, half));
    }
    // 8. Committed.
    return TxResult.<R>ofCommitted(value, eventId, attemptId, commitHalf(message, row, half));
  }

  private JournalRow journalRow(TxMessage message) {
    // payload() returns a copy: take it once (it may be up to maxPayloadBytes).
    byte[] payload = message.payload();
    String contentType = null;
    if (payload == null) {
      try {
        payload = serializer.serialize(message.payloadObject());
      } catch (RuntimeException e) {
        InvalidTxMessageException invalid =
            new InvalidTxMessageException(
                "payload",
                "of type "
                    + message.payloadObject().getClass().getName()
                    + " cannot be serialized by "
                    + serializer.getClass().getSimpleName()
                    + ": "
                    + e.getMessage());
        invalid.initCause(e);
        throw invalid;
      }
      contentType = serializer.contentType();
    }
    payload = sanitizer.sanitize(message, payload);
    if (payload == null) {
      throw new InvalidTxMessageException("payload", "the sanitizer returned null");
    }
    if (payload.length == 0) {
      // The serializer or sanitizer produced nothing; the broker would refuse it at send.
      throw new InvalidTxMessageException("payload", "is empty after serializing and sanitizing");
    }
    if (payload.length > settings.maxPayloadBytes()) {
      throw new InvalidTxMessageException(
          "payload", "is " + payload.length + " bytes, the limit is " + settings.maxPayloadBytes());
    }
    JournalRow row = new JournalRow();
    row.setEventId(message.eventId());
    row.setAttemptId(UUID.randomUUID().toString());
    row.setStoreId(settings.storeId());
    row.setAggregateType(message.aggregateType());
    row.setAggregateId(message.aggregateId());
    row.setAggregateVersion(message.aggregateVersion());
    row.setEventType(message.eventType());
    row.setEventVersion(message.eventVersion());
    row.setDestination(message.topic());
    row.setTag(message.tag());
    row.setMessageKey(message.eventId());
    row.setBusinessKey(message.businessKey());
    row.setPayload(payload);
    row.setContentType(contentType);
    row.setHeaders(HeadersCodec.encode(message.headers()));
    // 2. The hash, once, over the event's identity and bytes: never over per-send properties.
    row.setPayloadHash(
        PayloadHashes.compute(
            message.eventId(),
            message.eventType(),
            message.eventVersion(),
            message.aggregateType(),
            message.aggregateId(),
            message.aggregateVersion(),
            payload));
    // The origin time travels in the envelope and is stored as created_at, so a republish is
    // byte-identical to the first send.
    row.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    return row;
  }

  /** Steps 5 and 6: the local transaction did not commit. */
  private <R> TxResult<R> afterWorkFailed(
      JournalRow row, HalfMessage half, Stage stage, Throwable cause) {
    String eventId = row.getEventId();
    String attemptId = row.getAttemptId();
    if (stage == Stage.ATTEMPT_INSERT && SqlStates.isDuplicateKey(cause)) {
      // 5. Our own attempt key exists: a check-back fenced this attempt.
      rollbackHalf(half, eventId, attemptId);
      log.warn("attempt fenced eventId={} attemptId={}", eventId, attemptId);
      throw new AttemptFencedException(eventId, attemptId);
    }
    if (stage == Stage.JOURNAL_INSERT && SqlStates.isDuplicateKey(cause)) {
      return alreadyCommitted(row, half);
    }
    // 6. The action threw or a statement failed: record ROLLED_BACK, then roll back the half.
    settleRolledBack(row, half, cause);
    log.info(
        "local transaction rolled back eventId={} attemptId={} stage={} cause={}",
        eventId,
        attemptId,
        stage,
        cause.toString());
    if (stage != Stage.ACTION && !(cause instanceof TxMessagingException)) {
      // txmsg's own statement failed (or the self-check hit an aborted transaction): never a
      // MyBatis or driver type at the caller.
      throw new TransactionRolledBackException(
          "local transaction of eventId "
              + eventId
              + " failed at "
              + stage.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
              + " and was rolled back; nothing is committed: "
              + cause,
          cause);
    }
    if (cause instanceof RuntimeException) {
      throw (RuntimeException) cause;
    }
    if (cause instanceof Error) {
      throw (Error) cause;
    }
    throw new BusinessActionException(cause);
  }

  /** Step 5: an earlier attempt committed this eventId; decide in a FRESH transaction. */
  private <R> TxResult<R> alreadyCommitted(JournalRow row, HalfMessage half) {
    String eventId = row.getEventId();
    JournalRow existing;
    try {
      existing = storeTx.run(JournalMapper.class, m -> m.findById(eventId));
    } catch (Exception e) {
      throw new OutcomeUnknownException(
          "eventId "
              + eventId
              + " hit a duplicate key but the journal row could not be read; the"
              + " half message is left to the check-back",
          e);
    }
    if (existing == null) {
      throw new OutcomeUnknownException(
          "eventId " + eventId + " hit a duplicate key but no journal row is visible (archived?)",
          null);
    }
    settleRolledBack(row, half, null);
    if (!existing.getPayloadHash().equals(row.getPayloadHash())) {
      throw new EventIdConflictException(eventId, existing.getPayloadHash(), row.getPayloadHash());
    }
    log.info("idempotent retry eventId={} committedBy={}", eventId, existing.getAttemptId());
    return TxResult.ofAlreadyCommitted(eventId, row.getAttemptId());
  }

  /**
   * Writes this attempt ROLLED_BACK in its own transaction; only then rolls the half message back.
   * If that cannot be written, the half message is left open for the check-back to settle.
   */
  private void settleRolledBack(JournalRow row, HalfMessage half, Throwable original) {
    AttemptInsert r;
    try {
      r = recordRolledBack(row);
    } catch (Exception e) {
      OutcomeUnknownException u =
          new OutcomeUnknownException(
              "attempt "
                  + row.getAttemptId()
                  + " of eventId "
                  + row.getEventId()
                  + " failed and its ROLLED_BACK state could not be recorded; the check-back will"
                  + " settle the half message",
              e);
      if (original != null) {
        u.addSuppressed(original);
      }
      throw u;
    }
    boolean didNotCommit =
        r.outcome() == AttemptInsert.Outcome.INSERTED
            || (r.outcome() == AttemptInsert.Outcome.EXISTS
                && r.existingState() != AttemptState.COMMITTED
                && r.existingState() != null);
    if (!didNotCommit) {
      OutcomeUnknownException u =
          new OutcomeUnknownException(
              "attempt "
                  + row.getAttemptId()
                  + " of eventId "
                  + row.getEventId()
                  + " failed but its attempt key is "
                  + r
                  + "; the check-back will settle the half message",
              original);
      throw u;
    }
    rollbackHalf(half, row.getEventId(), row.getAttemptId());
  }

  /** Inserts this attempt ROLLED_BACK in its own short transaction (steps 6 and 7). */
  private AttemptInsert recordRolledBack(JournalRow row) throws Exception {
    return attempts.insert(
        row.getAttemptId(),
        row.getEventId(),
        settings.storeId(),
        AttemptState.ROLLED_BACK,
        settings.settleLockWait());
  }

  /** Step 7: commit() threw. Settle by the attempt state. */
  private void settleUnknownCommit(JournalRow row, HalfMessage half, Throwable commitError) {
    AttemptInsert r;
    try {
      r = recordRolledBack(row);
    } catch (Exception e) {
      e.addSuppressed(commitError);
      throw new OutcomeUnknownException(
          "commit of eventId " + row.getEventId() + " failed and its outcome could not be read", e);
    }
    switch (r.outcome()) {
      case INSERTED:
        rollbackHalf(half, row.getEventId(), row.getAttemptId());
        throw new TransactionRolledBackException(
            "commit of eventId " + row.getEventId() + " failed; nothing was committed",
            commitError);
      case EXISTS:
        if (r.existingState() == AttemptState.COMMITTED) {
          log.warn("commit() threw but the transaction committed eventId={}", row.getEventId());
          // The action's result is lost with the failed commit call; the fact is committed.
          return;
        }
        if (r.existingState() != null) {
          rollbackHalf(half, row.getEventId(), row.getAttemptId());
          throw new TransactionRolledBackException(
              "commit of eventId " + row.getEventId() + " failed; nothing was committed",
              commitError);
        }
        throw new OutcomeUnknownException(
            "commit of eventId " + row.getEventId() + " failed and its attempt row vanished",
            commitError);
      default:
        throw new OutcomeUnknownException(
            "commit of eventId "
                + row.getEventId()
                + " failed and a session still holds its attempt key; the check-back will settle it",
            commitError);
    }
  }

  /** Step 8. Failure is not an error: the check-back or the reconciler finishes the delivery. */
  private boolean commitHalf(TxMessage message, JournalRow row, HalfMessage half) {
    if (!interceptor.beforeHalfMessageCommit(message, row.getAttemptId())) {
      log.warn("half-message commit skipped by interceptor eventId={}", row.getEventId());
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      return false;
    }
    try {
      half.commit();
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.SENT);
    } catch (Exception e) {
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      log.warn(
          "half-message commit failed eventId={} attemptId={}: {} (check-back or reconciler will deliver)",
          row.getEventId(),
          row.getAttemptId(),
          e.toString());
      return false;
    }
    if (settings.confirmation() == DeliveryConfirmation.PROXY_ACK) {
      markSentAfterProxyAck(row);
    }
    return true;
  }

  private void markSentAfterProxyAck(JournalRow row) {
    try {
      storeTx.run(
          JournalMapper.class,
          m -> m.markSentByProducer(row.getEventId(), row.getBrokerMessageId()));
    } catch (Exception e) {
      // The row stays PENDING; the reconciler republishes it later (a harmless duplicate).
      log.warn("could not mark SENT eventId={}: {}", row.getEventId(), e.toString());
    }
  }

  private void rollbackHalf(HalfMessage half, String eventId, String attemptId) {
    try {
      half.rollback();
    } catch (Exception e) {
      // The attempt row says ROLLED_BACK/FENCED: the check-back answers ROLLBACK later.
      log.warn(
          "half-message rollback failed eventId={} attemptId={}: {}",
          eventId,
          attemptId,
          e.toString());
    }
  }

  private record Context(
      TxMessage message, String attemptId, Connection connection, StatementFailures failures)
      implements TxContext {
    @Override
    public void ignoreFailedStatements(String... sqlStatePrefixes) {
      failures.ignore(sqlStatePrefixes);
    }
  }
}
