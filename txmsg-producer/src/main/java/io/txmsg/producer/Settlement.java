package io.txmsg.producer;

import io.txmsg.api.AttemptFencedException;
import io.txmsg.api.BusinessActionException;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.OutcomeUnknownException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessagingException;
import io.txmsg.api.TxResult;
import io.txmsg.producer.Progress.Stage;
import io.txmsg.store.journal.AttemptInsert;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.transport.HalfMessage;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an execute knows after its local transaction failed, settled from durable state, never
 * guessed (docs/architecture.md, "The path of one event", steps 5 to 7, and "Producer: OUTBOX"):
 *
 * <ul>
 *   <li>a duplicate key on the attempt insert: a check-back fenced this attempt;
 *   <li>a duplicate key on the journal insert: an earlier attempt committed this eventId, decided
 *       in a fresh transaction (already committed, or a conflict);
 *   <li>the action threw or a statement failed: the attempt is recorded ROLLED_BACK in a short
 *       transaction of its own, and only then is the half message rolled back;
 *   <li>commit() threw: the outcome is read from the attempt key (or, in OUTBOX mode, left to a
 *       retry with the same eventId).
 * </ul>
 *
 * Each method either returns what the caller answers or throws the exception the caller gets; see
 * {@code TxMessageTemplate} for what each exception means.
 */
final class Settlement {
  private static final Logger log = LoggerFactory.getLogger(Settlement.class);

  private final TxProducerSettings settings;
  private final Attempts attempts;
  private final Journal journal;

  Settlement(TxProducerSettings settings, Attempts attempts, Journal journal) {
    this.settings = settings;
    this.attempts = attempts;
    this.journal = journal;
  }

  /** HALF_MESSAGE, steps 5 and 6: the local transaction did not commit. */
  <R> TxResult<R> afterWorkFailed(JournalRow row, HalfMessage half, Stage stage, Throwable cause) {
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
    throw rolledBack(row, stage, cause);
  }

  /** OUTBOX: the local transaction did not commit (no attempt row, no half message to settle). */
  <R> TxResult<R> afterOutboxWorkFailed(JournalRow row, Stage stage, Throwable cause) {
    if (stage == Stage.JOURNAL_INSERT && SqlStates.isDuplicateKey(cause)) {
      return alreadyCommitted(row, null);
    }
    throw rolledBack(row, stage, cause);
  }

  /**
   * OUTBOX: commit() threw. No attempt row settles this: a retry with the same eventId does
   * (already committed, or it commits now).
   */
  OutcomeUnknownException outboxCommitFailed(JournalRow row, Throwable commitError) {
    return new OutcomeUnknownException(
        "commit of eventId "
            + row.getEventId()
            + " failed and the database may or may not have committed it; retry the command"
            + " with the same eventId: it answers already committed, or commits now",
        commitError);
  }

  private RuntimeException rolledBack(JournalRow row, Stage stage, Throwable cause) {
    log.info(
        "local transaction rolled back eventId={} attemptId={} stage={} cause={}",
        row.getEventId(),
        row.getAttemptId(),
        stage,
        cause.toString());
    return rethrow(stage, row.getEventId(), cause);
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
              + stage.name().toLowerCase(Locale.ROOT).replace('_', ' ')
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

  /**
   * Step 5: an earlier attempt committed this eventId; decide in a FRESH transaction. {@code half}
   * is null in OUTBOX mode.
   */
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
      throw new OutcomeUnknownException(
          "attempt "
              + row.getAttemptId()
              + " of eventId "
              + row.getEventId()
              + " failed but its attempt key is "
              + r
              + "; the check-back will settle the half message",
          original);
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

  /**
   * Step 7: commit() threw. Settled by the attempt state: returns when the transaction committed
   * (the fact is committed; the action's result is lost with the failed commit call), throws
   * otherwise.
   */
  void settleUnknownCommit(JournalRow row, HalfMessage half, Throwable commitError) {
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

  private static void rollbackHalf(HalfMessage half, String eventId, String attemptId) {
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
}
