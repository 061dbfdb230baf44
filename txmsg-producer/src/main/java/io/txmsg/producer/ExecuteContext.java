package io.txmsg.producer;

import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxContext;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StatementFailures;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The action's view of one execute's local transaction ({@link TxContext}): the connection it
 * writes on (observed by the failed-statement detector from construction on), and {@link #publish},
 * which adds further events to the same transaction. Not thread-safe: one transaction, one thread.
 */
final class ExecuteContext implements TxContext {
  /** A row {@link #publish} wrote, to send after commit. */
  private record Published(TxMessage message, JournalRow row) {}

  private final TxMessage message;
  private final JournalRow primary;
  private final Connection connection;
  private final StatementFailures failures;
  private final Map<String, String> trace;
  private final EventRows rows;
  private final Journal journal;
  private final TxProducerSettings settings;
  private final List<Published> published = new ArrayList<>(0);
  private TransactionRolledBackException publishFailure;

  /**
   * The context of the action about to run; from here on the detector watches the connection.
   *
   * @param primary the execute's own row
   * @param trace the execute span's trace headers, stored with every published row too
   */
  ExecuteContext(
      TxMessage message,
      JournalRow primary,
      Connection connection,
      Map<String, String> trace,
      EventRows rows,
      Journal journal,
      TxProducerSettings settings) {
    this.message = message;
    this.primary = primary;
    this.connection = connection;
    this.trace = trace;
    this.rows = rows;
    this.journal = journal;
    this.settings = settings;
    this.failures = StatementFailures.of(connection);
    failures.watch();
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
   * on this transaction's connection. A failed insert (a duplicate eventId) also fails the execute
   * when the action catches it: the detector sees it when the connection is observed, and the
   * self-check otherwise where the database discarded the transaction.
   */
  @Override
  public void publish(TxMessage... messages) {
    if (messages == null || messages.length == 0) {
      throw new InvalidTxMessageException("messages", "at least one is required");
    }
    List<Published> added = new ArrayList<>(messages.length);
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
      added.add(
          new Published(m, rows.outbox(m, primary.getAttemptId(), primary.getCreatedAt(), trace)));
    }
    for (Published p : added) {
      try {
        journal.insert(connection, p.row(), settings.firstDueAfterMillis(p.row().getPublishMode()));
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

  /**
   * After the action returned, before the self-check: a {@link #publish} that failed, or a failed
   * statement the action swallowed and did not recover, fails the execute (the detector stops
   * watching here).
   */
  void afterAction() {
    if (publishFailure != null) {
      throw publishFailure;
    }
    Exception swallowed = failures.stop();
    if (swallowed != null) {
      // Caught by the action, seen by the detector: the same outcome on every database
      // (docs/architecture.md, "Failed statements inside the action").
      throw new TransactionRolledBackException(
          "a statement failed inside the action of eventId "
              + primary.getEventId()
              + " (SQLState "
              + SqlStates.state(swallowed)
              + ") and was not recovered; the local transaction was rolled back,"
              + " nothing is committed",
          swallowed);
    }
  }

  /**
   * Whether the detector saw every statement of the transaction and none failed: then the
   * self-check statement is not needed.
   */
  boolean provedClean() {
    return failures.provedClean();
  }

  /**
   * After commit: the one immediate send of each row {@link #publish} added (never throws: what is
   * not sent is left to the reconciler; CDC rows are not sent here, the relay sends them); returns
   * their eventIds. None for a context that never ran.
   */
  static List<String> publishAfterCommit(ExecuteContext context, ImmediatePublisher publisher) {
    if (context == null || context.published.isEmpty()) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(context.published.size());
    for (Published p : context.published) {
      if (p.row().getPublishMode() != PublishMode.CDC) { // a CDC row is the relay's to send
        publisher.publish(p.message(), p.row());
      }
      ids.add(p.row().getEventId());
    }
    return ids;
  }
}
