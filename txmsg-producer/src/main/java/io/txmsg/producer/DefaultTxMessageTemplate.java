package io.txmsg.producer;

import io.txmsg.api.ActiveTransactionException;
import io.txmsg.api.AttemptFencedException;
import io.txmsg.api.BusinessActionException;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.OutcomeUnknownException;
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
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.AttemptInsert;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StatementFailures;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.sql.Connection;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link TxMessageTemplate}: the half-message protocol of docs/architecture.md ("The path of
 * one event", steps 1–8) and the OUTBOX protocol ("Producer: OUTBOX"), over the transport port.
 *
 * <p>HALF_MESSAGE: half message first, then the local transaction (attempt row COMMITTED — the
 * fence point; journal row PENDING — the idempotency point; the action; a self-check of the attempt
 * row as the last statement), then the half-message commit. OUTBOX: the local transaction (journal
 * row PENDING with this call's attempt id — the idempotency point; the action; a self-check of that
 * journal row as the last statement), then one synchronous send. In both, rows the action adds with
 * {@link TxContext#publish} are written in the same transaction and sent OUTBOX-style after commit.
 * Every failure is settled from durable state, never guessed: see {@link TxMessageTemplate} for
 * what each exception means.
 */
public final class DefaultTxMessageTemplate implements TxMessageTemplate {
  private static final Logger log = LoggerFactory.getLogger(DefaultTxMessageTemplate.class);

  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final LocalTransactions transactions;
  private final Attempts attempts;
  private final Journal journal;
  private final PayloadSerializer serializer;
  private final PayloadSanitizer sanitizer;
  private final ProducerInterceptor interceptor;
  private final Set<String> topics;
  private final Set<String> fifoTopics;
  private final ProducerMetrics metrics;
  private final ImmediatePublisher publisher;
  private final ProducerObservations observations;

  DefaultTxMessageTemplate(
      TxProducerSettings settings,
      ProducerChannel producer,
      LocalTransactions transactions,
      DataSource dataSource,
      TxmsgStore store,
      PayloadSerializer serializer,
      PayloadSanitizer sanitizer,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics,
      Set<String> fifoTopics,
      ImmediatePublisher publisher,
      ProducerObservations observations) {
    this.metrics = metrics;
    this.observations = observations;
    this.fifoTopics = Set.copyOf(fifoTopics);
    this.publisher = publisher;
    this.settings = settings;
    this.producer = producer;
    this.transactions = transactions;
    this.attempts = new Attempts(dataSource, store);
    this.journal = new Journal(dataSource, store);
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
    String attemptId = UUID.randomUUID().toString();
    Instant originTime = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    boolean outbox = settings.deliveryMode() == DeliveryMode.OUTBOX;
    // Filled by the tracing bridge (if any) when txmsg.execute starts: the context of the execute
    // span, stored with every row of this call so each (re)publish carries the same parent.
    Map<String, String> injected = new HashMap<>(4);
    try (ProducerObservations.Observed observed =
        observations.execute(
            message.topic(),
            message.eventType(),
            message.eventId(),
            outbox ? "outbox" : "half_message",
            injected)) {
      Map<String, String> trace = TraceHeaders.usable(injected);
      try {
        TxResult<R> result =
            outbox
                ? executeOutbox(
                    message, action, journalRow(message, attemptId, originTime, trace), trace)
                : executeHalf(message, action, attemptId, originTime, trace);
        observed.outcome(result.outcome().name().toLowerCase(Locale.ROOT));
        return result;
      } catch (RuntimeException | Error e) {
        observed.outcome(outcomeOf(e));
        observed.error(e);
        throw e;
      }
    }
  }

  /** The {@code txmsg.outcome} tag of a failed execute: the exception's kind, a bounded set. */
  private static String outcomeOf(Throwable e) {
    if (e instanceof EventIdConflictException) {
      return "conflict";
    }
    if (e instanceof AttemptFencedException) {
      return "fenced";
    }
    if (e instanceof OutcomeUnknownException) {
      return "outcome_unknown";
    }
    if (e instanceof TransactionRolledBackException) {
      return "rolled_back";
    }
    if (e instanceof PublishException) {
      return "publish_failed";
    }
    if (e instanceof InvalidTxMessageException) {
      return "invalid";
    }
    if (e instanceof TxMessagingException) {
      return "error";
    }
    // Not txmsg's own type: the action's exception, rethrown after the rollback (see rethrow).
    return "rolled_back";
  }

  /** HALF_MESSAGE: steps 3 to 8. */
  private <R> TxResult<R> executeHalf(
      TxMessage message,
      TransactionalBusinessAction<R> action,
      String attemptId,
      Instant originTime,
      Map<String, String> trace) {
    if (message.messageGroup() != null) {
      throw new InvalidTxMessageException(
          "messageGroup",
          "is set, but this producer sends the event as a half message, which cannot be FIFO (the"
              + " client rejects a message group on transactional messages); publish it with"
              + " ctx.publish or use deliveryMode OUTBOX");
    }
    JournalRow row = journalRow(message, attemptId, originTime, trace); // a half message
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
    Context[] context = {null};
    R value;
    try {
      value =
          transactions.inTransaction(
              connection -> {
                attempts.insertCommitted(connection, attemptId, eventId, settings.storeId());
                stage[0] = Stage.JOURNAL_INSERT;
                journal.insert(connection, row, settings.republishAfter().toMillis());
                stage[0] = Stage.ACTION;
                interceptor.beforeAction(message, attemptId);
                StatementFailures failures = StatementFailures.of(connection);
                failures.watch();
                context[0] = new Context(message, row, connection, failures, trace);
                R r = action.execute(context[0]);
                stage[0] = Stage.SELF_CHECK;
                context[0].failIfPublishFailed();
                failIfSwallowed(failures, eventId);
                // Last statement: a swallowed failure left PG aborted (this throws 25P02) or
                // MariaDB rolled back and restarted (this finds no row). Not needed when the
                // detector saw every statement of the transaction and none failed.
                AttemptState state =
                    failures.provedClean()
                        ? AttemptState.COMMITTED
                        : attempts.lockState(connection, attemptId);
                if (state != AttemptState.COMMITTED) {
                  throw new TransactionRolledBackException(
                      "pre-commit self-check failed for attempt "
                          + attemptId
                          + " (found "
                          + state
                          + "): the database discarded the transaction (a failed statement on"
                          + " PostgreSQL, a deadlock on MariaDB); nothing is committed",
                      null);
                }
                failIfPastDeadline(deadline);
                return r;
              });
    } catch (LocalTransactions.WorkFailedException failed) {
      return afterWorkFailed(row, half, stage[0], failed.getCause());
    } catch (LocalTransactions.CommitFailedException commitFailed) {
      settleUnknownCommit(row, half, commitFailed.getCause());
      // 8. Committed, proved by the attempt row; the action's value went with the failed call.
      boolean acked = commitHalf(message, row, half);
      return TxResult.<R>ofCommittedResultLost(eventId, attemptId, acked)
          .withPublished(publishAll(context[0]));
    }
    // 8. Committed.
    boolean acked = commitHalf(message, row, half);
    return TxResult.<R>ofCommitted(value, eventId, attemptId, acked)
        .withPublished(publishAll(context[0]));
  }

  /**
   * The last check before commit in both modes: a local transaction past its timeout is rolled
   * back.
   */
  private void failIfPastDeadline(long deadline) {
    if (System.nanoTime() > deadline) {
      throw new TransactionRolledBackException(
          "local transaction exceeded " + settings.localTransactionTimeout() + "; rolled back",
          null);
    }
  }

  /**
   * OUTBOX (docs/architecture.md, "Producer: OUTBOX"): journal row first (the idempotency point,
   * with this call's attempt id), the action, the self-check re-reading that row as the last
   * statement, commit, one immediate send. No attempt row and no half message: nothing is sent
   * before commit, so nothing needs fencing.
   */
  private <R> TxResult<R> executeOutbox(
      TxMessage message,
      TransactionalBusinessAction<R> action,
      JournalRow row,
      Map<String, String> trace) {
    String eventId = row.getEventId();
    String attemptId = row.getAttemptId();
    outboxStyle(row, message);
    Stage[] stage = {Stage.JOURNAL_INSERT};
    long deadline = System.nanoTime() + settings.localTransactionTimeout().toNanos();
    Context[] context = {null};
    R value;
    try {
      value =
          transactions.inTransaction(
              connection -> {
                journal.insert(connection, row, settings.publishAfter().toMillis());
                stage[0] = Stage.ACTION;
                interceptor.beforeAction(message, attemptId);
                StatementFailures failures = StatementFailures.of(connection);
                failures.watch();
                context[0] = new Context(message, row, connection, failures, trace);
                R r = action.execute(context[0]);
                stage[0] = Stage.SELF_CHECK;
                context[0].failIfPublishFailed();
                failIfSwallowed(failures, eventId);
                // Last statement: this call's own journal row. A swallowed failure left PG
                // aborted (this throws 25P02) or MariaDB rolled back and restarted (no row).
                // Not needed when the detector saw every statement and none failed.
                if (!failures.provedClean()
                    && !journal.lockOwnRow(connection, eventId, attemptId)) {
                  throw new TransactionRolledBackException(
                      "pre-commit self-check failed for eventId "
                          + eventId
                          + ": its journal row of attempt "
                          + attemptId
                          + " is gone (the database discarded the transaction: a failed"
                          + " statement on PostgreSQL, a deadlock on MariaDB); nothing is"
                          + " committed",
                      null);
                }
                failIfPastDeadline(deadline);
                return r;
              });
    } catch (LocalTransactions.WorkFailedException failed) {
      Throwable cause = failed.getCause();
      if (stage[0] == Stage.JOURNAL_INSERT && SqlStates.isDuplicateKey(cause)) {
        return alreadyCommitted(row, null);
      }
      log.info(
          "local transaction rolled back eventId={} attemptId={} stage={} cause={}",
          eventId,
          attemptId,
          stage[0],
          cause.toString());
      throw rethrow(stage[0], eventId, cause);
    } catch (LocalTransactions.CommitFailedException commitFailed) {
      // No attempt row settles this: a retry with the same eventId does (already committed, or
      // it commits now).
      throw new OutcomeUnknownException(
          "commit of eventId "
              + eventId
              + " failed and the database may or may not have committed it; retry the command"
              + " with the same eventId: it answers already committed, or commits now",
          commitFailed.getCause());
    }
    boolean sent = publisher.publish(message, row);
    return TxResult.<R>ofCommitted(value, eventId, attemptId, sent)
        .withPublished(publishAll(context[0]));
  }

  /** Marks a row as sent OUTBOX-style: a plain or FIFO send, picked up after publishAfter. */
  private void outboxStyle(JournalRow row, TxMessage message) {
    row.setPublishMode(PublishMode.SEND);
    row.setMessageGroup(messageGroup(message));
  }

  /**
   * The FIFO message group of a row sent OUTBOX-style: the one the message sets, else its aggregate
   * on a FIFO topic, else none. An aggregate key longer than the column (128) is hashed.
   */
  private String messageGroup(TxMessage message) {
    if (message.messageGroup() != null) {
      return message.messageGroup();
    }
    if (!fifoTopics.contains(message.topic())) {
      return null;
    }
    String group = message.aggregateType() + ":" + message.aggregateId();
    return group.length() <= 128 ? group : message.aggregateType() + ":" + sha256Hex(group);
  }

  private static String sha256Hex(String s) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The immediate sends of the rows {@link TxContext#publish} added; returns their eventIds. */
  private List<String> publishAll(Context context) {
    if (context == null || context.published.isEmpty()) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(context.published.size());
    for (Published p : context.published) {
      publisher.publish(p.message(), p.row());
      ids.add(p.row().getEventId());
    }
    return ids;
  }

  private static void failIfSwallowed(StatementFailures failures, String eventId) {
    Exception swallowed = failures.stop();
    if (swallowed != null) {
      // Caught by the action, seen by the detector: the same outcome on every database
      // (docs/architecture.md, "Failed statements inside the action").
      throw new TransactionRolledBackException(
          "a statement failed inside the action of eventId "
              + eventId
              + " (SQLState "
              + SqlStates.state(swallowed)
              + ") and was not recovered; the local transaction was rolled back,"
              + " nothing is committed",
          swallowed);
    }
  }

  /**
   * The journal row of {@code message}. {@code trace} (the execute span's context) is stored with
   * the application headers, which win on a name clash; it is not part of the payload hash, so a
   * retry of the same eventId from another trace is an idempotent retry, never a conflict.
   */
  private JournalRow journalRow(
      TxMessage message, String attemptId, Instant originTime, Map<String, String> trace) {
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
    // 2. The hash is computed there, once. The origin time travels in the envelope and is stored
    // as created_at, so a republish is byte-identical to the first send; every row of one call
    // shares it (with the attempt id it finds a retry's published events: Journal.publishedWith).
    return JournalRow.of(
        message,
        attemptId,
        settings.storeId(),
        payload,
        contentType,
        TraceHeaders.merge(message.headers(), trace),
        originTime);
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
    throw rethrow(stage, eventId, cause);
  }

  /** What the caller of a rolled-back execute gets: the action's own exception, else txmsg's. */
  private static RuntimeException rethrow(Stage stage, String eventId, Throwable cause) {
    if (stage != Stage.ACTION && !(cause instanceof TxMessagingException)) {
      // txmsg's own statement failed (or the self-check hit an aborted transaction): never a
      // MyBatis or driver type at the caller.
      return new TransactionRolledBackException(
          "local transaction of eventId "
              + eventId
              + " failed at "
              + stage.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
              + " and was rolled back; nothing is committed: "
              + cause,
          cause);
    }
    if (cause instanceof RuntimeException) {
      return (RuntimeException) cause;
    }
    if (cause instanceof Error) {
      throw (Error) cause;
    }
    return new BusinessActionException(cause);
  }

  /** Step 5: an earlier attempt committed this eventId; decide in a FRESH transaction. */
  private <R> TxResult<R> alreadyCommitted(JournalRow row, HalfMessage half) {
    String eventId = row.getEventId();
    JournalRow existing;
    try {
      existing = journal.find(eventId);
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
    if (half != null) {
      settleRolledBack(row, half, null);
    }
    if (!existing.getPayloadHash().equals(row.getPayloadHash())) {
      throw new EventIdConflictException(eventId, existing.getPayloadHash(), row.getPayloadHash());
    }
    log.info("idempotent retry eventId={} committedBy={}", eventId, existing.getAttemptId());
    List<String> published;
    try {
      published = journal.publishedWith(existing.getCreatedAt(), existing.getAttemptId(), eventId);
    } catch (Exception e) {
      throw new OutcomeUnknownException(
          "eventId "
              + eventId
              + " is already committed, but the events its call published could not be read",
          e);
    }
    return TxResult.<R>ofAlreadyCommitted(eventId, row.getAttemptId()).withPublished(published);
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
      journal.markSentByProducer(row.getEventId(), row.getBrokerMessageId());
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

  /** A row {@link TxContext#publish} wrote, to send after commit. */
  private record Published(TxMessage message, JournalRow row) {}

  /** The action's view of the transaction; not thread-safe (one transaction, one thread). */
  private final class Context implements TxContext {
    private final TxMessage message;
    private final JournalRow primary;
    private final Connection connection;
    private final StatementFailures failures;
    private final Map<String, String> trace;
    private final List<Published> published = new ArrayList<>(0);
    private TransactionRolledBackException publishFailure;

    Context(
        TxMessage message,
        JournalRow primary,
        Connection connection,
        StatementFailures failures,
        Map<String, String> trace) {
      this.trace = trace;
      this.message = message;
      this.primary = primary;
      this.connection = connection;
      this.failures = failures;
    }

    @Override
    public TxMessage message() {
      return message;
    }

    @Override
    public String attemptId() {
      return primary.getAttemptId();
    }

    @Override
    public Connection connection() {
      return connection;
    }

    @Override
    public void ignoreFailedStatements(String... sqlStatePrefixes) {
      failures.ignore(sqlStatePrefixes);
    }

    /**
     * Validates every message first (nothing is written if one is invalid), then inserts their rows
     * on this transaction's connection. A failed insert (a duplicate eventId) also fails the
     * execute when the action catches it: the detector sees it when the connection is observed, and
     * the self-check otherwise where the database discarded the transaction.
     */
    @Override
    public void publish(TxMessage... messages) {
      if (messages == null || messages.length == 0) {
        throw new InvalidTxMessageException("messages", "at least one is required");
      }
      List<Published> rows = new ArrayList<>(messages.length);
      for (TxMessage m : messages) {
        if (m == null) {
          throw new InvalidTxMessageException("messages", "must not contain null");
        }
        if (!settings.publishable(m.topic())) {
          throw new InvalidTxMessageException(
              "topic",
              LogSafe.quote(m.topic())
                  + " is not a topic ctx.publish may send to: declare it in publishTopics"
                  + " (a NORMAL or FIFO topic)");
        }
        if (m.eventId().equals(primary.getEventId())) {
          throw new InvalidTxMessageException(
              "eventId", LogSafe.quote(m.eventId()) + " is the eventId of the execute's own event");
        }
        JournalRow row = journalRow(m, primary.getAttemptId(), primary.getCreatedAt(), trace);
        outboxStyle(row, m);
        rows.add(new Published(m, row));
      }
      for (Published p : rows) {
        try {
          journal.insert(connection, p.row(), settings.publishAfter().toMillis());
        } catch (RuntimeException e) {
          Throwable sql = SqlStates.find(e);
          TransactionRolledBackException failure =
              new TransactionRolledBackException(
                  "ctx.publish of eventId "
                      + p.row().getEventId()
                      + " failed"
                      + (SqlStates.isDuplicateKey(e) ? " (that eventId already exists)" : "")
                      + "; the execute fails and nothing is committed",
                  sql != null ? sql : e);
          // Also when the action catches it, on a connection the detector does not observe.
          publishFailure = failure;
          throw failure;
        }
        published.add(p);
      }
    }

    void failIfPublishFailed() {
      if (publishFailure != null) {
        throw publishFailure;
      }
    }
  }
}
