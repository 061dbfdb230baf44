package io.txmsg.producer;

import io.txmsg.api.TransactionNotJoinableException;
import io.txmsg.api.TransactionRolledBackException;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Every joined publish of one Spring transaction, and what happens at its end: {@code
 * beforeCommit}, ordered last, runs the {@link JoinedSelfCheck}; {@code afterCompletion} hands each
 * event to the {@link JoinedCompletion}. Loaded only when spring-tx is on the class path.
 */
final class JoinedSynchronization implements TransactionSynchronization {
  private static final Logger log = LoggerFactory.getLogger(JoinedPublisher.class);

  private final JoinedPublisher owner;
  private final Connection connection;
  private final JoinedSelfCheck selfCheck;
  private final JoinedCompletion completion;
  private final List<JoinedEntry> entries = new ArrayList<>(1);

  private JoinedSynchronization(
      JoinedPublisher owner,
      Connection connection,
      JoinedSelfCheck selfCheck,
      JoinedCompletion completion) {
    this.owner = owner;
    this.connection = connection;
    this.selfCheck = selfCheck;
    this.completion = completion;
  }

  /**
   * The current transaction's synchronization of {@code owner}, registered now if this is its first
   * publish.
   */
  static JoinedSynchronization of(
      JoinedPublisher owner,
      Connection connection,
      JoinedSelfCheck selfCheck,
      JoinedCompletion completion) {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof JoinedSynchronization j && j.owner == owner) {
        if (j.connection != connection) {
          throw new TransactionNotJoinableException(
              "TxMessageTemplate.publish: the transaction's bound connection changed since its"
                  + " first publish; this transaction cannot be joined");
        }
        return j;
      }
    }
    JoinedSynchronization j = new JoinedSynchronization(owner, connection, selfCheck, completion);
    TransactionSynchronizationManager.registerSynchronization(j);
    return j;
  }

  /** Adds an event before its first statement: its settlement must see it. */
  void add(JoinedEntry e) {
    entries.add(e);
  }

  /** Last among the before-commit callbacks: statements of the others run before it. */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }

  @Override
  public void beforeCommit(boolean readOnly) {
    for (JoinedEntry e : entries) {
      if (e.failure != null) {
        throw new TransactionRolledBackException(
            "a publish of eventId "
                + e.row.getEventId()
                + " in this transaction failed ("
                + e.failure.getMessage()
                + "); the transaction is rolled back, nothing is committed or delivered",
            e.failure);
      }
    }
    for (JoinedEntry e : entries) {
      selfCheck.check(connection, e);
    }
  }

  @Override
  public void afterCompletion(int status) {
    for (JoinedEntry e : entries) {
      try {
        switch (status) {
          case STATUS_COMMITTED -> completion.committed(e);
          case STATUS_ROLLED_BACK -> completion.rolledBack(e);
          default -> completion.unknown(e);
        }
      } catch (RuntimeException x) {
        // Never thrown into the caller's completed transaction: what is left unsettled here is
        // settled by the check-back (half messages) or the reconciler (journal rows).
        log.warn(
            "after-completion of eventId={} attemptId={} status={}: {}",
            e.row.getEventId(),
            e.row.getAttemptId(),
            status,
            x.toString());
      }
    }
  }
}
