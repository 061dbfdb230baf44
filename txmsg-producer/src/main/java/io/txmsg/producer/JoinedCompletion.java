package io.txmsg.producer;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.producer.JoinedEntry.Stage;
import io.txmsg.store.journal.AttemptInsert;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a joined publish's events after the caller's transaction ended ({@link
 * JoinedSynchronization#afterCompletion}): after a commit the rows are read back and only what
 * committed is sent (the OUTBOX-style row) or committed (the half message); after a rollback or an
 * unknown outcome the half messages are settled by their attempt key. Everything here runs on
 * connections of the pool itself, never the ended transaction's.
 */
final class JoinedCompletion {
  private static final Logger log = LoggerFactory.getLogger(JoinedPublisher.class);

  private final TxProducerSettings settings;
  private final Attempts attempts;
  private final Journal journal;
  private final ProducerInterceptor interceptor;
  private final ProducerMetrics metrics;
  private final ImmediatePublisher publisher;

  JoinedCompletion(
      TxProducerSettings settings,
      Attempts attempts,
      Journal journal,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics,
      ImmediatePublisher publisher) {
    this.settings = settings;
    this.attempts = attempts;
    this.journal = journal;
    this.interceptor = interceptor;
    this.metrics = metrics;
    this.publisher = publisher;
  }

  /**
   * Spring reports COMMITTED once the JDBC commit returned, which is not proof that the rows
   * committed: PostgreSQL answers the COMMIT of a transaction a later synchronization aborted (and
   * swallowed) with a rollback the driver reports as success, and a MariaDB deadlock after the
   * self-check restarts the transaction without the rows. So the rows are read back, on a pool
   * connection, before anything goes out: a row that did not commit is never delivered.
   */
  void committed(JoinedEntry e) {
    if (e.stage != Stage.WRITTEN) {
      return; // a duplicate: nothing of it is delivered (its half was rolled back)
    }
    JournalRow row = e.row;
    if (!e.half) {
      JournalRow stored;
      try {
        stored = journal.find(row.getEventId());
      } catch (Exception x) {
        // Unreadable now: the reconciler sends the row after publishAfter if it committed.
        log.warn(
            "could not read back eventId={} after commit: {} (the reconciler sends it if it"
                + " committed)",
            row.getEventId(),
            x.toString());
        return;
      }
      if (stored == null || !row.getAttemptId().equals(stored.getAttemptId())) {
        log.error(
            "eventId={} attemptId={}: the transaction was reported committed but its journal"
                + " row is not there (rolled back by the database after txmsg's pre-commit"
                + " check); nothing is sent",
            row.getEventId(),
            row.getAttemptId());
        return;
      }
      publisher.publish(e.message, row);
      return;
    }
    AttemptState state;
    try {
      state = attempts.read(row.getAttemptId());
    } catch (Exception x) {
      log.warn(
          "could not read back attemptId={} eventId={} after commit: {} (the check-back settles"
              + " its half message)",
          row.getAttemptId(),
          row.getEventId(),
          x.toString());
      return;
    }
    if (state == AttemptState.COMMITTED) {
      commitHalf(e);
    } else {
      log.error(
          "eventId={} attemptId={}: the transaction was reported committed but its attempt row is"
              + " {} (rolled back by the database after txmsg's pre-commit check); the half"
              + " message is rolled back",
          row.getEventId(),
          row.getAttemptId(),
          state == null ? "not there" : state);
      settle(e, false);
    }
  }

  private void commitHalf(JoinedEntry e) {
    JournalRow row = e.row;
    if (!interceptor.beforeHalfMessageCommit(e.message, row.getAttemptId())) {
      log.warn("half-message commit skipped by interceptor eventId={}", row.getEventId());
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      return;
    }
    e.halfSettled = true;
    boolean brokerAnswered;
    try {
      brokerAnswered = HalfCommit.commit(e.halfMessage, settings.confirmation());
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.SENT);
    } catch (Exception x) {
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      log.warn(
          "half-message commit failed eventId={} attemptId={}: {} (check-back or reconciler"
              + " will deliver)",
          row.getEventId(),
          row.getAttemptId(),
          x.toString());
      return;
    }
    HalfCommit.recordSent(row, brokerAnswered, settings, journal, publisher);
  }

  /** Rolled back: the attempt is recorded ROLLED_BACK (own transaction), then the half. */
  void rolledBack(JoinedEntry e) {
    if (e.halfMessage == null || e.halfSettled) {
      return; // OUTBOX-style rows: nothing was sent
    }
    settle(e, false);
  }

  /**
   * Outcome unknown: settled by the attempt key as when commit() throws in execute; a key still
   * locked leaves the half message to the check-back. OUTBOX-style rows: the reconciler sends them
   * if they committed.
   */
  void unknown(JoinedEntry e) {
    if (e.halfMessage == null || e.halfSettled) {
      return;
    }
    settle(e, true);
  }

  private void settle(JoinedEntry e, boolean mayHaveCommitted) {
    AttemptInsert r;
    try {
      r =
          attempts.insert(
              e.row.getAttemptId(),
              e.row.getEventId(),
              settings.storeId(),
              AttemptState.ROLLED_BACK,
              settings.settleLockWait());
    } catch (SQLException x) {
      log.warn(
          "could not record ROLLED_BACK for attemptId={} eventId={}: {} (the check-back will"
              + " settle its half message)",
          e.row.getAttemptId(),
          e.row.getEventId(),
          x.toString());
      return;
    }
    switch (r.outcome()) {
      case INSERTED -> rollbackHalf(e);
      case EXISTS -> {
        if (r.existingState() == AttemptState.COMMITTED) {
          if (mayHaveCommitted && e.stage == Stage.WRITTEN) {
            commitHalf(e);
          } else {
            log.warn(
                "attemptId={} eventId={} is COMMITTED after a rollback; left to the check-back",
                e.row.getAttemptId(),
                e.row.getEventId());
          }
        } else if (r.existingState() != null) {
          rollbackHalf(e);
        }
      }
      default ->
          log.warn(
              "attempt key of attemptId={} eventId={} still locked; the check-back settles it",
              e.row.getAttemptId(),
              e.row.getEventId());
    }
  }

  /** Rolls back an event's half message once, if it was sent; a failure is logged. */
  void rollbackHalf(JoinedEntry e) {
    if (e.halfMessage == null || e.halfSettled) {
      return;
    }
    e.halfSettled = true;
    try {
      e.halfMessage.rollback();
    } catch (Exception x) {
      // The attempt row will say ROLLED_BACK or FENCED: the check-back answers ROLLBACK.
      log.warn(
          "half-message rollback failed eventId={} attemptId={}: {}",
          e.row.getEventId(),
          e.row.getAttemptId(),
          x.toString());
    }
  }
}
