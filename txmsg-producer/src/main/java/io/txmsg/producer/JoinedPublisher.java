package io.txmsg.producer;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.EventAlreadyCommittedException;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessagingException;
import io.txmsg.producer.JoinedEntry.Stage;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.sql.Connection;
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

/**
 * {@code TxMessageTemplate.publish}: events written in the caller's Spring transaction (README,
 * "Publish inside your {@code @Transactional}" and the joined column of "What is guaranteed").
 * Constructed only when spring-tx and spring-jdbc are on the class path; the Spring-facing parts
 * are {@link JoinableConnection} (the caller's connection, or a refusal) and {@link
 * JoinedSynchronization}.
 *
 * <p>Per transaction one {@link JoinedSynchronization}, registered before the first statement of
 * the first publish, holds every publish of that transaction:
 *
 * <ul>
 *   <li>HALF_MESSAGE (a {@code topics} topic): the attempt row COMMITTED first (its key stays
 *       locked by the caller's transaction, so a check-back meanwhile answers UNKNOWN, and FENCED
 *       once a rollback freed it), then the half message, then the journal row;
 *   <li>a row sent OUTBOX-style (OUTBOX mode, or a {@code publishTopics} topic): the journal row.
 * </ul>
 *
 * {@code beforeCommit}, ordered last, is the self-check of every publish ({@link JoinedSelfCheck}):
 * each one's rows must be as it left them, else the commit fails and is rolled back. {@code
 * afterCompletion} ({@link JoinedCompletion}) commits or rolls back the half messages and sends the
 * OUTBOX-style rows; its settlement uses connections of the pool itself (never the ended
 * transaction's, which is still bound then).
 */
final class JoinedPublisher {
  private static final Logger log = LoggerFactory.getLogger(JoinedPublisher.class);

  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final JoinableConnection connections;
  private final Attempts attempts;
  private final Journal journal;
  private final EventRows rows;
  private final ProducerInterceptor interceptor;
  private final ProducerObservations observations;
  private final JoinedSelfCheck selfCheck;
  private final JoinedCompletion completion;

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
    this.connections = new JoinableConnection(dataSource);
    // The pool itself: a TransactionAwareDataSourceProxy would hand afterCompletion's settlement
    // the ended transaction's connection, still bound at that point.
    DataSource pool = connections.pool();
    this.attempts = new Attempts(pool, store);
    this.journal = new Journal(pool, store);
    this.rows = rows;
    this.interceptor = interceptor;
    this.selfCheck = new JoinedSelfCheck(attempts, journal);
    this.completion =
        new JoinedCompletion(settings, attempts, journal, interceptor, metrics, publisher);
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
    List<JoinedEntry> entries = new ArrayList<>(messages.length);
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
      entries.add(new JoinedEntry(m, row, half));
    }
    Connection connection = connections.current();
    JoinedSynchronization joined =
        JoinedSynchronization.of(this, connection, selfCheck, completion);
    for (JoinedEntry validated : entries) {
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
        JoinedEntry e =
            new JoinedEntry(
                m,
                validated.half
                    ? rows.halfMessage(m, attemptId, originTime, trace)
                    : rows.outbox(m, attemptId, originTime, trace),
                validated.half);
        joined.add(e); // before its first statement: its settlement must see it
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

  /** The statements (and, for a half message, the send) of one event. */
  private void write(Connection c, JoinedEntry e) {
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

  private HalfMessage sendHalf(JoinedEntry e) {
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
  private void duplicate(Connection c, JoinedEntry e) {
    JournalRow row = e.row;
    JournalRow existing = journal.lockExisting(c, row.getEventId());
    if (e.half) {
      // The self-check accepts ROLLED_BACK for this attempt; the check-back answers ROLLBACK.
      attempts.markRolledBack(c, row.getAttemptId());
      e.stage = Stage.DUPLICATE;
      completion.rollbackHalf(e);
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
}
