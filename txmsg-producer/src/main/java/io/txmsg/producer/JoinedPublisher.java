package io.txmsg.producer;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.EventAlreadyCommittedException;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionNotJoinableException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessagingException;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.AttemptInsert;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code TxMessageTemplate.publish}: events written in the caller's Spring transaction (README,
 * "Publish inside your {@code @Transactional}" and the joined column of "What is guaranteed").
 * Loaded only when spring-tx and spring-jdbc are on the class path.
 *
 * <p>Per transaction one {@link Joined} synchronization, registered before the first statement of
 * the first publish, holds every publish of that transaction:
 *
 * <ul>
 *   <li>HALF_MESSAGE (a {@code topics} topic): the attempt row COMMITTED first (its key stays
 *       locked by the caller's transaction, so a check-back meanwhile answers UNKNOWN, and FENCED
 *       once a rollback freed it), then the half message, then the journal row;
 *   <li>a row sent OUTBOX-style (OUTBOX mode, or a {@code publishTopics} topic): the journal row.
 * </ul>
 *
 * {@code beforeCommit}, ordered last, is the self-check of every publish: each one's rows must be
 * as it left them, else the commit fails and is rolled back. {@code afterCompletion} commits or
 * rolls back the half messages and sends the OUTBOX-style rows; its settlement uses connections of
 * the pool itself (never the ended transaction's, which is still bound then).
 */
final class JoinedPublisher {
  private static final Logger log = LoggerFactory.getLogger(JoinedPublisher.class);

  private static final String DATA_SOURCE_UTILS_SYNCHRONIZATION =
      "org.springframework.jdbc.datasource.DataSourceUtils$ConnectionSynchronization";

  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final DataSource dataSource;
  private final List<Object> resourceKeys;
  private final Attempts attempts;
  private final Journal journal;
  private final EventRows rows;
  private final ProducerInterceptor interceptor;
  private final ProducerMetrics metrics;
  private final ImmediatePublisher publisher;
  private final ProducerObservations observations;

  JoinedPublisher(
      TxProducerSettings settings,
      ProducerChannel producer,
      DataSource dataSource,
      TxmsgStore store,
      EventRows rows,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics,
      ImmediatePublisher publisher,
      ProducerObservations observations) {
    this.settings = settings;
    this.observations = observations;
    this.producer = producer;
    this.dataSource = dataSource;
    this.resourceKeys = resourceKeys(dataSource);
    // The pool itself: a TransactionAwareDataSourceProxy would hand afterCompletion's settlement
    // the ended transaction's connection, still bound at that point.
    DataSource pool = (DataSource) resourceKeys.get(resourceKeys.size() - 1);
    this.attempts = new Attempts(pool, store);
    this.journal = new Journal(pool, store);
    this.rows = rows;
    this.interceptor = interceptor;
    this.metrics = metrics;
    this.publisher = publisher;
  }

  /**
   * The keys a transaction manager may have bound txmsg's DataSource's connection under: the
   * DataSource itself, and the targets it wraps (a TransactionAwareDataSourceProxy bean over the
   * pool the transaction manager runs on).
   */
  private static List<Object> resourceKeys(DataSource dataSource) {
    List<Object> keys = new ArrayList<>(2);
    DataSource ds = dataSource;
    while (ds != null && !keys.contains(ds)) {
      keys.add(ds);
      ds = ds instanceof DelegatingDataSource d ? d.getTargetDataSource() : null;
    }
    return keys;
  }

  void publish(TxMessage... messages) {
    if (messages == null || messages.length == 0) {
      throw new InvalidTxMessageException("messages", "at least one is required");
    }
    if (settings.deliveryMode() != DeliveryMode.HALF_MESSAGE
        && settings.deliveryMode() != DeliveryMode.OUTBOX) {
      // Another mode (a relay of its own) writes and sends its rows differently: refused rather
      // than sent the OUTBOX way.
      throw new TxMessagingException(
          "TxMessageTemplate.publish supports deliveryMode HALF_MESSAGE and OUTBOX; this producer"
              + " runs "
              + settings.deliveryMode()
              + " (use execute)");
    }
    // Validate and build every row before any side effect.
    Instant originTime = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    List<Entry> entries = new ArrayList<>(messages.length);
    Set<String> ids = new LinkedHashSet<>();
    for (TxMessage m : messages) {
      if (m == null) {
        throw new InvalidTxMessageException("messages", "must not contain null");
      }
      if (!ids.add(m.eventId())) {
        throw new InvalidTxMessageException(
            "eventId", LogSafe.quote(m.eventId()) + " appears twice in one publish");
      }
      boolean half =
          settings.deliveryMode() == DeliveryMode.HALF_MESSAGE
              && settings.topics().contains(m.topic());
      boolean outboxTopic =
          settings.deliveryMode() == DeliveryMode.OUTBOX && settings.topics().contains(m.topic());
      if (!half && !outboxTopic && !settings.publishable(m.topic())) {
        throw new InvalidTxMessageException(
            "topic",
            LogSafe.quote(m.topic())
                + " is not one of this producer's topics "
                + settings.topics()
                + " or publishTopics");
      }
      if (half && m.messageGroup() != null) {
        throw new InvalidTxMessageException(
            "messageGroup",
            "is set, but this producer sends the event as a half message, which cannot be FIFO"
                + " (the client rejects a message group on transactional messages); use a"
                + " publishTopics FIFO topic or deliveryMode OUTBOX");
      }
      String attemptId = UUID.randomUUID().toString();
      JournalRow row =
          half
              ? rows.halfMessage(m, attemptId, originTime, Map.of())
              : rows.outbox(m, attemptId, originTime, Map.of());
      entries.add(new Entry(m, row, half));
    }
    Connection connection = joinableConnection();
    Joined joined = joinedOf(connection);
    for (Entry validated : entries) {
      // txmsg.execute around each event's writes (mode joined_*): the row stores the context of
      // its span, so every (re)publish and the consumer's span continue the caller's trace. The
      // row is built again inside it; the first build above validated it before any write.
      Map<String, String> injected = new HashMap<>(4);
      TxMessage m = validated.message;
      try (ProducerObservations.Observed observed =
          observations.execute(
              m.topic(),
              m.eventType(),
              m.eventId(),
              validated.half ? "joined_half_message" : "joined_outbox",
              injected)) {
        Map<String, String> trace = TraceHeaders.usable(injected);
        String attemptId = validated.row.getAttemptId();
        Entry e =
            new Entry(
                m,
                validated.half
                    ? rows.halfMessage(m, attemptId, originTime, trace)
                    : rows.outbox(m, attemptId, originTime, trace),
                validated.half);
        joined.entries.add(e); // before its first statement: its settlement must see it
        try {
          write(connection, e);
          observed.outcome("joined");
        } catch (EventAlreadyCommittedException already) {
          observed.outcome("already_committed");
          throw already;
        } catch (RuntimeException | Error failed) {
          observed.outcome("failed");
          observed.error(failed);
          throw failed;
        }
      }
    }
  }

  /** The connection of the caller's transaction, or a refusal naming what was found. */
  private Connection joinableConnection() {
    ConnectionHolder holder = null;
    for (Object key : resourceKeys) {
      if (TransactionSynchronizationManager.getResource(key) instanceof ConnectionHolder h) {
        holder = h;
        break;
      }
    }
    if (!TransactionSynchronizationManager.isSynchronizationActive() && holder != null) {
      // A transaction manager set to SYNCHRONIZATION_NEVER binds its connection but marks no
      // transaction active and runs no callbacks.
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found a connection of txmsg's DataSource bound to a"
              + " transaction without transaction synchronization (a transaction manager set to"
              + " SYNCHRONIZATION_NEVER?): no callback would commit or roll back the half message"
              + " or send the event after it ends");
    }
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish needs an active transaction (it is MANDATORY), and none is"
              + " active on this thread: call it inside a @Transactional method or a"
              + " TransactionTemplate (or use execute, which runs its own transaction)");
    }
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found an active transaction without transaction"
              + " synchronization: no callback would commit or roll back the half message after"
              + " it ends");
    }
    if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found a read-only transaction"
              + describeTransaction()
              + ": its business changes may be dropped (Hibernate does not flush a read-only"
              + " transaction) while txmsg's rows would commit, an event without its fact");
    }
    if (holder == null || holder.getConnectionHandle() == null) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found no JDBC connection of txmsg's DataSource ("
              + dataSource
              + ") bound to the active transaction"
              + describeTransaction()
              + "; bound resources: "
              + describeResources()
              + ". It joins a transaction manager that binds a connection of that DataSource"
              + " (DataSourceTransactionManager, JdbcTransactionManager, JpaTransactionManager"
              + " with Hibernate); JTA, a JPA dialect that exposes no connection, or a"
              + " transaction manager of another DataSource cannot be joined");
    }
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s.getClass().getName().equals(DATA_SOURCE_UTILS_SYNCHRONIZATION)) {
        // DataSourceUtils bound this connection for a transaction that is not a JDBC resource
        // transaction of this DataSource (JTA, or a transaction manager of another resource): its
        // commit is not this connection's commit.
        throw new TransactionNotJoinableException(
            "TxMessageTemplate.publish found txmsg's DataSource's connection bound by"
                + " DataSourceUtils for the transaction"
                + describeTransaction()
                + ", not by its transaction manager: the transaction is JTA or managed for"
                + " another resource (bound resources: "
                + describeResources()
                + "); use DataSourceTransactionManager, JdbcTransactionManager or"
                + " JpaTransactionManager over txmsg's DataSource");
      }
    }
    Connection c = holder.getConnection();
    boolean autoCommit;
    try {
      autoCommit = c.getAutoCommit();
    } catch (SQLException e) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish could not read the bound connection's auto-commit mode: " + e);
    }
    if (autoCommit) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish found the connection bound to the transaction"
              + describeTransaction()
              + " in auto-commit mode: its rows would commit at once, whatever the transaction"
              + " then does");
    }
    return c;
  }

  private static String describeTransaction() {
    String name = TransactionSynchronizationManager.getCurrentTransactionName();
    return name == null ? "" : " (" + name + ")";
  }

  private static String describeResources() {
    Map<Object, Object> bound = TransactionSynchronizationManager.getResourceMap();
    if (bound.isEmpty()) {
      return "none (a JTA transaction binds no JDBC connection)";
    }
    List<String> out = new ArrayList<>(bound.size());
    for (Map.Entry<Object, Object> b : bound.entrySet()) {
      out.add(b.getValue().getClass().getSimpleName() + " for " + b.getKey());
    }
    return String.join(", ", out);
  }

  /** This transaction's synchronization, registered now if this is its first publish. */
  private Joined joinedOf(Connection connection) {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof Joined j && j.owner() == this) {
        if (j.connection != connection) {
          throw new TransactionNotJoinableException(
              "TxMessageTemplate.publish: the transaction's bound connection changed since its"
                  + " first publish; this transaction cannot be joined");
        }
        return j;
      }
    }
    Joined j = new Joined(connection);
    TransactionSynchronizationManager.registerSynchronization(j);
    return j;
  }

  /** The statements (and, for a half message, the send) of one event. */
  private void write(Connection c, Entry e) {
    JournalRow row = e.row;
    String eventId = row.getEventId();
    try {
      if (e.half) {
        attempts.insertCommitted(c, row.getAttemptId(), eventId, settings.storeId());
        e.stage = Stage.HALF_SEND;
        e.halfMessage = sendHalf(e);
        e.stage = Stage.JOURNAL_INSERT;
      }
      long dueAfter = (e.half ? settings.republishAfter() : settings.publishAfter()).toMillis();
      if (journal.insertIfAbsent(c, row, dueAfter)) {
        e.stage = Stage.WRITTEN;
        return;
      }
      duplicate(c, e);
    } catch (EventAlreadyCommittedException | InvalidTxMessageException ok) {
      throw ok;
    } catch (RuntimeException failed) {
      e.failure = failed;
      if (failed instanceof TxMessagingException) {
        throw failed;
      }
      Throwable sql = SqlStates.find(failed);
      throw new TransactionRolledBackException(
          "publish of eventId "
              + eventId
              + " failed at "
              + e.stage.describe()
              + "; the caller's transaction can no longer commit (its commit will throw) and"
              + " nothing is delivered: "
              + (sql != null ? sql : failed),
          sql != null ? sql : failed);
    }
  }

  private HalfMessage sendHalf(Entry e) {
    HalfMessage half;
    try {
      half = producer.sendHalf(EnvelopeCodec.encode(e.row));
    } catch (PublishException p) {
      throw new PublishException(
          "half message for eventId "
              + e.row.getEventId()
              + " not sent: "
              + p.getMessage()
              + "; the caller's transaction can no longer commit (its commit will throw)",
          p.errorCode(),
          p.retryable(),
          p);
    }
    e.row.setBrokerMessageId(half.messageId());
    e.halfMessage = half; // sent: from here on a failure must roll it back
    interceptor.afterHalfMessageSent(e.message, e.row.getAttemptId());
    return half;
  }

  /** The eventId exists: decided on the caller's own connection, never on a second one. */
  private void duplicate(Connection c, Entry e) {
    JournalRow row = e.row;
    JournalRow existing = journal.lockExisting(c, row.getEventId());
    if (e.half) {
      // The self-check accepts ROLLED_BACK for this attempt; the check-back answers ROLLBACK.
      attempts.markRolledBack(c, row.getAttemptId());
      e.stage = Stage.DUPLICATE;
      rollbackHalf(e);
    } else {
      e.stage = Stage.DUPLICATE;
    }
    if (existing == null) {
      throw new TransactionRolledBackException(
          "publish of eventId "
              + row.getEventId()
              + " hit an existing eventId whose row cannot be read; the caller's transaction can"
              + " no longer commit",
          null);
    }
    if (!existing.getPayloadHash().equals(row.getPayloadHash())) {
      EventIdConflictException conflict =
          new EventIdConflictException(
              row.getEventId(), existing.getPayloadHash(), row.getPayloadHash());
      e.failure = conflict; // a reused eventId dooms the transaction
      throw conflict;
    }
    log.info(
        "joined publish of an already committed eventId={} committedBy={}",
        row.getEventId(),
        existing.getAttemptId());
    throw new EventAlreadyCommittedException(row.getEventId(), existing.getAttemptId());
  }

  private void rollbackHalf(Entry e) {
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

  private enum Stage {
    ATTEMPT_INSERT,
    HALF_SEND,
    JOURNAL_INSERT,
    WRITTEN,
    DUPLICATE;

    String describe() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
  }

  /** One event of a publish and how far it got. */
  private static final class Entry {
    final TxMessage message;
    final JournalRow row;
    final boolean half;
    Stage stage;
    HalfMessage halfMessage;
    boolean halfSettled;
    RuntimeException failure;

    Entry(TxMessage message, JournalRow row, boolean half) {
      this.message = message;
      this.row = row;
      this.half = half;
      this.stage = half ? Stage.ATTEMPT_INSERT : Stage.JOURNAL_INSERT;
    }
  }

  /** Every publish of one transaction, and what happens at its end. */
  private final class Joined implements TransactionSynchronization {
    final Connection connection;
    final List<Entry> entries = new ArrayList<>(1);

    Joined(Connection connection) {
      this.connection = connection;
    }

    JoinedPublisher owner() {
      return JoinedPublisher.this;
    }

    /** Last among the before-commit callbacks: statements of the others run before it. */
    @Override
    public int getOrder() {
      return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
      for (Entry e : entries) {
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
      for (Entry e : entries) {
        selfCheck(e);
      }
    }

    /**
     * Each publish's rows as it left them: HALF_MESSAGE, its attempt row COMMITTED and its journal
     * row (or ROLLED_BACK after a duplicate); OUTBOX-style, its journal row. A row missing means
     * the database discarded the transaction (a MariaDB deadlock restart) or a savepoint was rolled
     * back over it; PostgreSQL's aborted transaction makes the statement itself throw.
     */
    private void selfCheck(Entry e) {
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
        } else if (e.stage == Stage.DUPLICATE
            || journal.lockOwnRow(connection, eventId, attemptId)) {
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

    @Override
    public void afterCompletion(int status) {
      for (Entry e : entries) {
        try {
          switch (status) {
            case STATUS_COMMITTED -> committed(e);
            case STATUS_ROLLED_BACK -> rolledBack(e);
            default -> unknown(e);
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

    /**
     * Spring reports COMMITTED once the JDBC commit returned, which is not proof that the rows
     * committed: PostgreSQL answers the COMMIT of a transaction a later synchronization aborted
     * (and swallowed) with a rollback the driver reports as success, and a MariaDB deadlock after
     * the self-check restarts the transaction without the rows. So the rows are read back, on a
     * pool connection, before anything goes out: a row that did not commit is never delivered.
     */
    private void committed(Entry e) {
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

    private void commitHalf(Entry e) {
      JournalRow row = e.row;
      if (!interceptor.beforeHalfMessageCommit(e.message, row.getAttemptId())) {
        log.warn("half-message commit skipped by interceptor eventId={}", row.getEventId());
        metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
        return;
      }
      e.halfSettled = true;
      try {
        e.halfMessage.commit();
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
      if (settings.confirmation() == DeliveryConfirmation.PROXY_ACK) {
        try {
          journal.markSentByProducer(row.getEventId(), row.getBrokerMessageId());
        } catch (Exception x) {
          log.warn("could not mark SENT eventId={}: {}", row.getEventId(), x.toString());
        }
      }
    }

    /** Rolled back: the attempt is recorded ROLLED_BACK (own transaction), then the half. */
    private void rolledBack(Entry e) {
      if (e.halfMessage == null || e.halfSettled) {
        return; // OUTBOX-style rows: nothing was sent
      }
      settle(e, false);
    }

    /**
     * Outcome unknown: settled by the attempt key as when commit() throws in execute; a key still
     * locked leaves the half message to the check-back. OUTBOX-style rows: the reconciler sends
     * them if they committed.
     */
    private void unknown(Entry e) {
      if (e.halfMessage == null || e.halfSettled) {
        return;
      }
      settle(e, true);
    }

    private void settle(Entry e, boolean mayHaveCommitted) {
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
  }
}
