package io.txmsg.producer;

import io.txmsg.api.ActiveTransactionException;
import io.txmsg.api.AttemptFencedException;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.EventIdConflictException;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.OutcomeUnknownException;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.PublishException;
import io.txmsg.api.TransactionNotJoinableException;
import io.txmsg.api.TransactionRolledBackException;
import io.txmsg.api.TransactionalBusinessAction;
import io.txmsg.api.TxContext;
import io.txmsg.api.TxMessage;
import io.txmsg.api.TxMessageTemplate;
import io.txmsg.api.TxMessagingException;
import io.txmsg.api.TxResult;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.transport.ProducerChannel;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The {@link TxMessageTemplate}: the half-message protocol of docs/architecture.md ("The path of
 * one event", steps 1–8) and the OUTBOX protocol ("Producer: OUTBOX"), over the transport port.
 * This class validates (step 1), observes the call and hands it to the delivery mode's execution:
 *
 * <ul>
 *   <li>{@link HalfMessageExecution}: half message first, then the local transaction (attempt row
 *       COMMITTED — the fence point; journal row PENDING — the idempotency point; the action; a
 *       self-check of the attempt row as the last statement), then the half-message commit;
 *   <li>{@link OutboxExecution}: the local transaction (journal row PENDING with this call's
 *       attempt id — the idempotency point; the action; a self-check of that journal row as the
 *       last statement), then one synchronous send.
 * </ul>
 *
 * In both, the action sees an {@link ExecuteContext}, whose {@link TxContext#publish} rows are
 * written in the same transaction and sent OUTBOX-style after commit; the rows are built by {@link
 * EventRows}. Every failure is settled from durable state by {@link Settlement}, never guessed: see
 * {@link TxMessageTemplate} for what each exception means.
 */
public final class DefaultTxMessageTemplate implements TxMessageTemplate {
  /** {@link #publish} joins Spring transactions: only with spring-tx and spring-jdbc present. */
  private static final boolean SPRING =
      present("org.springframework.transaction.support.TransactionSynchronizationManager")
          && present("org.springframework.jdbc.datasource.ConnectionHolder");

  private final TxProducerSettings settings;
  private final LocalTransactions transactions;
  private final Set<String> topics;
  private final EventRows rows;
  private final HalfMessageExecution half;
  private final OutboxExecution outbox;
  private final ProducerObservations observations;
  private final JoinedPublisher joined;

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
      ProducerObservations observations,
      String instanceId) {
    this.settings = settings;
    this.transactions = transactions;
    this.topics = settings.topics();
    this.observations = observations;
    Attempts attempts = new Attempts(dataSource, store);
    Journal journal = new Journal(dataSource, store);
    this.rows = new EventRows(settings, serializer, sanitizer, fifoTopics, instanceId);
    Settlement settlement = new Settlement(settings, attempts, journal);
    this.half =
        new HalfMessageExecution(
            settings,
            producer,
            transactions,
            attempts,
            journal,
            rows,
            settlement,
            interceptor,
            metrics,
            publisher);
    this.outbox =
        new OutboxExecution(
            settings, transactions, journal, rows, settlement, interceptor, publisher);
    this.joined =
        SPRING
            ? new JoinedPublisher(
                settings,
                producer,
                dataSource,
                store,
                rows,
                interceptor,
                metrics,
                publisher,
                observations)
            : null;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, DefaultTxMessageTemplate.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws TransactionNotJoinableException also when spring-tx or spring-jdbc is not on the class
   *     path (there is no Spring transaction to join)
   */
  @Override
  public void publish(TxMessage... messages) {
    if (joined == null) {
      throw new TransactionNotJoinableException(
          "TxMessageTemplate.publish joins a Spring transaction, and spring-tx/spring-jdbc are not"
              + " on the class path; use execute, which runs its own transaction");
    }
    joined.publish(messages);
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
    // CDC runs OUTBOX's local transaction with CDC rows (no send after commit).
    boolean outboxMode = settings.deliveryMode() != DeliveryMode.HALF_MESSAGE;
    // Filled by the tracing bridge (if any) when txmsg.execute starts: the context of the execute
    // span, stored with every row of this call so each (re)publish carries the same parent.
    Map<String, String> injected = new HashMap<>(4);
    try (ProducerObservations.Observed observed =
        observations.execute(
            message.topic(),
            message.eventType(),
            message.eventId(),
            settings.deliveryMode().name().toLowerCase(Locale.ROOT),
            injected)) {
      Map<String, String> trace = TraceHeaders.usable(injected);
      try {
        TxResult<R> result =
            outboxMode
                ? outbox.execute(
                    message, action, rows.outbox(message, attemptId, originTime, trace), trace)
                : half.execute(message, action, attemptId, originTime, trace);
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
    // Not txmsg's own type: the action's exception, rethrown after the rollback (Settlement).
    return "rolled_back";
  }
}
