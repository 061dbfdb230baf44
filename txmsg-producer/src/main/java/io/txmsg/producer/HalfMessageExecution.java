package io.txmsg.producer;

import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.producer.Progress.Stage;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.sql.Connection;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An execute in HALF_MESSAGE mode (docs/architecture.md, "The path of one event", steps 3 to 8):
 * the half message first, then the local transaction (the attempt row COMMITTED, the fence point;
 * the journal row PENDING, the idempotency point; the action; a self-check of the attempt row as
 * the last statement), then the half-message commit. A failure is handed to {@link Settlement}.
 */
final class HalfMessageExecution {
  private static final Logger log = LoggerFactory.getLogger(HalfMessageExecution.class);

  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final LocalTransactions transactions;
  private final Attempts attempts;
  private final Journal journal;
  private final EventRows rows;
  private final Settlement settlement;
  private final ProducerInterceptor interceptor;
  private final ProducerMetrics metrics;
  private final ImmediatePublisher publisher;

  HalfMessageExecution(
      TxProducerSettings settings,
      ProducerChannel producer,
      LocalTransactions transactions,
      Attempts attempts,
      Journal journal,
      EventRows rows,
      Settlement settlement,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics,
      ImmediatePublisher publisher) {
    this.settings = settings;
    this.producer = producer;
    this.transactions = transactions;
    this.attempts = attempts;
    this.journal = journal;
    this.rows = rows;
    this.settlement = settlement;
    this.interceptor = interceptor;
    this.metrics = metrics;
    this.publisher = publisher;
  }

  <R> TxResult<R> execute(
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
    JournalRow row = rows.halfMessage(message, attemptId, originTime, trace);
    HalfMessage half = sendHalf(message, row);
    Progress progress = new Progress(Stage.ATTEMPT_INSERT, settings.localTransactionTimeout());
    R value;
    try {
      value =
          transactions.inTransaction(
              connection -> localTransaction(connection, message, action, row, trace, progress));
    } catch (LocalTransactions.WorkFailedException failed) {
      return settlement.afterWorkFailed(row, half, progress.stage(), failed.getCause());
    } catch (LocalTransactions.CommitFailedException commitFailed) {
      settlement.settleUnknownCommit(row, half, commitFailed.getCause());
      // 8. Committed, proved by the attempt row; the action's value went with the failed call.
      boolean acked = commitHalf(message, row, half);
      return TxResult.<R>ofCommittedResultLost(row.getEventId(), attemptId, acked)
          .withPublished(ExecuteContext.publishAfterCommit(progress.context(), publisher));
    }
    // 8. Committed.
    boolean acked = commitHalf(message, row, half);
    return TxResult.<R>ofCommitted(value, row.getEventId(), attemptId, acked)
        .withPublished(ExecuteContext.publishAfterCommit(progress.context(), publisher));
  }

  /** Step 3. If the send fails, nothing else happens; the exception says whether it may retry. */
  private HalfMessage sendHalf(TxMessage message, JournalRow row) {
    HalfMessage half;
    try {
      half = producer.sendHalf(EnvelopeCodec.encode(row));
    } catch (PublishException e) {
      throw new PublishException(
          "half message for eventId " + row.getEventId() + " not sent: " + e.getMessage(),
          e.errorCode(),
          e.retryable(),
          e);
    }
    row.setBrokerMessageId(half.messageId());
    log.debug(
        "half message sent eventId={} attemptId={} messageId={}",
        row.getEventId(),
        row.getAttemptId(),
        row.getBrokerMessageId());
    interceptor.afterHalfMessageSent(message, row.getAttemptId());
    return half;
  }

  /** Step 4, on the local transaction's connection. */
  private <R> R localTransaction(
      Connection connection,
      TxMessage message,
      TransactionalBusinessAction<R> action,
      JournalRow row,
      Map<String, String> trace,
      Progress progress)
      throws Exception {
    String attemptId = row.getAttemptId();
    attempts.insertCommitted(connection, attemptId, row.getEventId(), settings.storeId());
    progress.reached(Stage.JOURNAL_INSERT);
    journal.insert(connection, row, settings.republishAfter().toMillis());
    progress.reached(Stage.ACTION);
    interceptor.beforeAction(message, attemptId);
    ExecuteContext context =
        new ExecuteContext(message, row, connection, trace, rows, journal, settings);
    progress.contextOf(context);
    R r = action.execute(context);
    progress.reached(Stage.SELF_CHECK);
    context.afterAction();
    // Last statement: a swallowed failure left PG aborted (this throws 25P02) or MariaDB rolled
    // back and restarted (this finds no row). Not needed when the detector saw every statement of
    // the transaction and none failed.
    AttemptState state =
        context.provedClean() ? AttemptState.COMMITTED : attempts.lockState(connection, attemptId);
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
    progress.failIfPastDeadline();
    return r;
  }

  /** Step 8. Failure is not an error: the check-back or the reconciler finishes the delivery. */
  private boolean commitHalf(TxMessage message, JournalRow row, HalfMessage half) {
    if (!interceptor.beforeHalfMessageCommit(message, row.getAttemptId())) {
      log.warn("half-message commit skipped by interceptor eventId={}", row.getEventId());
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      return false;
    }
    boolean brokerAnswered;
    try {
      brokerAnswered = HalfCommit.commit(half, settings.confirmation());
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
    HalfCommit.recordSent(row, brokerAnswered, settings, journal, publisher);
    return true;
  }
}
