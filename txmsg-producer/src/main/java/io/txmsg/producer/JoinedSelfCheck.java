package io.txmsg.producer;

import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.producer.JoinedEntry.Stage;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.tx.SqlStates;
import java.sql.Connection;

/**
 * The pre-commit self-check of a joined publish, run on the caller's connection as the last
 * before-commit callback ({@link JoinedSynchronization#beforeCommit}): each publish's rows must be
 * as it left them, else the commit fails and is rolled back.
 */
final class JoinedSelfCheck {
  private final Attempts attempts;
  private final Journal journal;

  JoinedSelfCheck(Attempts attempts, Journal journal) {
    this.attempts = attempts;
    this.journal = journal;
  }

  /**
   * Each publish's rows as it left them: HALF_MESSAGE, its attempt row COMMITTED and its journal
   * row (or ROLLED_BACK after a duplicate); OUTBOX-style, its journal row. A row missing means the
   * database discarded the transaction (a MariaDB deadlock restart) or a savepoint was rolled back
   * over it; PostgreSQL's aborted transaction makes the statement itself throw.
   */
  void check(Connection connection, JoinedEntry e) {
    String eventId = e.row.getEventId();
    String attemptId = e.row.getAttemptId();
    String found;
    try {
      if (e.half) {
        AttemptState state = attempts.lockState(connection, attemptId);
        AttemptState expected =
            e.stage == Stage.DUPLICATE ? AttemptState.ROLLED_BACK : AttemptState.COMMITTED;
        if (state != expected) {
          found = "its attempt row is " + (state == null ? "gone" : state);
        } else if (expected == AttemptState.COMMITTED
            && !journal.lockOwnRow(connection, eventId, attemptId)) {
          found = "its journal row is gone";
        } else {
          return;
        }
      } else if (e.stage == Stage.DUPLICATE || journal.lockOwnRow(connection, eventId, attemptId)) {
        return;
      } else {
        found = "its journal row is gone";
      }
    } catch (RuntimeException x) {
      Throwable sql = SqlStates.find(x);
      throw new TransactionRolledBackException(
          "pre-commit self-check of the publish of eventId "
              + eventId
              + " failed: the database discarded the transaction (a failed statement on"
              + " PostgreSQL); nothing is committed or delivered: "
              + (sql != null ? sql : x),
          sql != null ? sql : x);
    }
    throw new TransactionRolledBackException(
        "pre-commit self-check of the publish of eventId "
            + eventId
            + " failed: "
            + found
            + " (the database discarded the transaction, e.g. a MariaDB deadlock, or a"
            + " savepoint was rolled back over it); nothing is committed or delivered",
        null);
  }
}
