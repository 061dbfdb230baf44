package io.txmsg.producer;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxResult;
import io.txmsg.producer.Progress.Stage;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.tx.LocalTransactions;
import java.sql.Connection;
import java.util.Map;

/**
 * An execute in OUTBOX mode (docs/architecture.md, "Producer: OUTBOX"): the journal row first (the
 * idempotency point, with this call's attempt id), the action, the self-check re-reading that row
 * as the last statement, commit, one immediate send. No attempt row and no half message: nothing is
 * sent before commit, so nothing needs fencing. A failure is handed to {@link Settlement}. The CDC
 * delivery mode runs the same local transaction with CDC rows and makes no send after commit (the
 * relay sends them; the reconciler after cdcFallbackAfter).
 */
final class OutboxExecution {
  private final TxProducerSettings settings;
  private final LocalTransactions transactions;
  private final Journal journal;
  private final EventRows rows;
  private final Settlement settlement;
  private final ProducerInterceptor interceptor;
  private final ImmediatePublisher publisher;

  OutboxExecution(
      TxProducerSettings settings,
      LocalTransactions transactions,
      Journal journal,
      EventRows rows,
      Settlement settlement,
      ProducerInterceptor interceptor,
      ImmediatePublisher publisher) {
    this.settings = settings;
    this.transactions = transactions;
    this.journal = journal;
    this.rows = rows;
    this.settlement = settlement;
    this.interceptor = interceptor;
    this.publisher = publisher;
  }

  /** {@code row}: the execute's own row, built OUTBOX-style ({@link EventRows#outbox}). */
  <R> TxResult<R> execute(
      TxMessage message,
      TransactionalBusinessAction<R> action,
      JournalRow row,
      Map<String, String> trace) {
    Progress progress = new Progress(Stage.JOURNAL_INSERT, settings.localTransactionTimeout());
    R value;
    try {
      value =
          transactions.inTransaction(
              connection -> localTransaction(connection, message, action, row, trace, progress));
    } catch (LocalTransactions.WorkFailedException failed) {
      return settlement.afterOutboxWorkFailed(row, progress.stage(), failed.getCause());
    } catch (LocalTransactions.CommitFailedException commitFailed) {
      throw settlement.outboxCommitFailed(row, commitFailed.getCause());
    }
    // CDC: nothing is sent on the caller's thread; the relay reads the insert from the log.
    boolean sent = row.getPublishMode() != PublishMode.CDC && publisher.publish(message, row);
    return TxResult.<R>ofCommitted(value, row.getEventId(), row.getAttemptId(), sent)
        .withPublished(ExecuteContext.publishAfterCommit(progress.context(), publisher));
  }

  private <R> R localTransaction(
      Connection connection,
      TxMessage message,
      TransactionalBusinessAction<R> action,
      JournalRow row,
      Map<String, String> trace,
      Progress progress)
      throws Exception {
    String eventId = row.getEventId();
    String attemptId = row.getAttemptId();
    journal.insert(connection, row, settings.firstDueAfterMillis(row.getPublishMode()));
    progress.reached(Stage.ACTION);
    interceptor.beforeAction(message, attemptId);
    ExecuteContext context =
        new ExecuteContext(message, row, connection, trace, rows, journal, settings);
    progress.contextOf(context);
    R r = action.execute(context);
    progress.reached(Stage.SELF_CHECK);
    context.afterAction();
    // Last statement: this call's own journal row. A swallowed failure left PG aborted (this
    // throws 25P02) or MariaDB rolled back and restarted (no row). Not needed when the detector
    // saw every statement and none failed.
    if (!context.provedClean() && !journal.lockOwnRow(connection, eventId, attemptId)) {
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
    progress.failIfPastDeadline();
    return r;
  }
}
