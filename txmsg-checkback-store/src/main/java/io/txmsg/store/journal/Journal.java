package io.txmsg.store.journal;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The journal table: one row per committed event, the idempotency point, the outbox the reconciler
 * publishes from and what operators inspect (docs/architecture.md, "The path of one event").
 *
 * <p>The statements of a local transaction take the connection of the caller's transaction ({@link
 * #insert}, the OUTBOX self-check {@link #lockOwnRow}, an operator's {@link #requeueDead}); each is
 * a separate call, so a caller can run them at different moments of one transaction. Every other
 * operation runs in a short transaction of its own and throws what the database threw (the
 * transaction was rolled back). Statements on a caller's connection throw what MyBatis wraps the
 * driver's SQLException in (an unchecked exception; {@link SqlStates} finds the SQLException).
 *
 * <p>Every update a reconciler or the give-up drain makes after its claim matches only while the
 * row is SENDING under the caller's owner token: a taken-over lease's late update changes nothing.
 */
public final class Journal {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public Journal(DataSource dataSource, TxmsgStore store) {
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  // ---- on the caller's transaction

  /**
   * Inserts {@code row} PENDING with {@code next_retry_at} = the database's now + {@code
   * dueAfterMillis} (when the reconciler may pick it up). A duplicate key on {@code event_id} means
   * the event is already committed (or being committed) by another attempt.
   */
  public void insert(Connection c, JournalRow row, long dueAfterMillis) {
    store.on(c, JournalMapper.class, m -> m.insert(row, dueAfterMillis));
  }

  /**
   * Inserts {@code row} as {@link #insert} does, unless its eventId exists, without aborting the
   * caller's transaction (a joined publish runs in the application's transaction, which a duplicate
   * must not doom): returns false when the eventId exists. PostgreSQL skips the conflicting row; H2
   * and MariaDB roll back the failed statement only, and its duplicate key is caught here. Any
   * other failure is thrown as by {@link #insert}.
   */
  public boolean insertIfAbsent(Connection c, JournalRow row, long dueAfterMillis) {
    row.setRepublishAfterMillis(dueAfterMillis);
    try {
      return store.on(c, JournalMapper.class, m -> m.insertIfAbsent(row)) == 1;
    } catch (RuntimeException e) {
      if (SqlStates.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * On the caller's transaction, after {@link #insertIfAbsent} found the eventId: the existing
   * row's event id, attempt id and payload hash (other fields are not read), locked so that the
   * latest committed row is read whatever the isolation level; null when there is none.
   */
  public JournalRow lockExisting(Connection c, String eventId) {
    return store.on(c, JournalMapper.class, m -> m.lockExisting(eventId));
  }

  /**
   * The self-check of an OUTBOX execute, the last statement of its transaction: locks this
   * execute's own row ({@code WHERE event_id = ? AND attempt_id = ? FOR UPDATE}). False when the
   * database discarded the transaction (MariaDB after a deadlock); throws on PostgreSQL's aborted
   * transaction.
   */
  public boolean lockOwnRow(Connection c, String eventId, String attemptId) {
    return store.on(c, JournalMapper.class, m -> m.selectOwnForUpdate(eventId, attemptId)) != null;
  }

  /**
   * DEAD → RETRY (due now) for the listed rows younger than {@code maxAgeMillis}, noting {@code
   * note} as their last error; returns how many (an operator's re-queue, with its audit row in the
   * same transaction).
   */
  public int requeueDead(Connection c, List<String> eventIds, long maxAgeMillis, String note) {
    return store.on(c, JournalMapper.class, m -> m.requeueDead(eventIds, maxAgeMillis, note));
  }

  // ---- reads, each in a short transaction of its own

  /** The row of {@code eventId}, or null. */
  public JournalRow find(String eventId) throws Exception {
    return transactions.run(JournalMapper.class, m -> m.findById(eventId));
  }

  /**
   * The events {@code TxContext.publish} added in the call that committed {@code primaryEventId}:
   * rows with its attempt id and origin time (served by journal_created_ix), sorted by eventId.
   */
  public List<String> publishedWith(Instant createdAt, String attemptId, String primaryEventId)
      throws Exception {
    return transactions.run(
        JournalMapper.class, m -> m.publishedWith(createdAt, attemptId, primaryEventId));
  }

  /**
   * Whether the FIFO order lets this row go now: no lower version of its aggregate in its store is
   * PENDING, SENDING, RETRY or DEAD, and no other row of its message group is in flight.
   */
  public boolean inOrder(String eventId) throws Exception {
    return transactions.run(JournalMapper.class, m -> m.orderBlockers(eventId)) == 0;
  }

  /** Unconfirmed rows per destination with the oldest one's age (the pending gauges). */
  public List<PendingByDestination> pendingByDestination() throws Exception {
    return transactions.run(JournalMapper.class, JournalMapper::pendingByDestination);
  }

  /** SENDING rows whose lease ran out (a reconciler died or stalled holding them). */
  public int countExpiredLeases() throws Exception {
    return transactions.run(JournalMapper.class, JournalMapper::countExpiredLeases);
  }

  /** Unsent FIFO rows held back by a DEAD lower version of their aggregate. */
  public int countBlockedByDead() throws Exception {
    return transactions.run(JournalMapper.class, JournalMapper::countBlockedByDead);
  }

  // ---- check-back and delivery, each in a short transaction of its own

  /**
   * Counts a check-back on the row, only when {@code attemptId} is the row's attempt (check-backs
   * of an earlier, dead attempt of the same eventId are not counted); returns the rows counted.
   */
  public int recordCheckback(String eventId, String attemptId) throws Exception {
    return transactions.run(JournalMapper.class, m -> m.recordCheckback(eventId, attemptId));
  }

  /**
   * The most rows one set-based statement names. Bounded so that a statement's parameters (three
   * per row with a message id) stay far below every driver's limit and its plan stays cheap.
   */
  public static final int MAX_ROWS_PER_STATEMENT = 1000;

  /**
   * Delivery confirmation: the PENDING/SENDING/RETRY rows among these become SENT, in one
   * transaction of one statement per {@link #MAX_ROWS_PER_STATEMENT} rows.
   */
  public int markSent(List<String> eventIds) throws Exception {
    if (eventIds.size() <= MAX_ROWS_PER_STATEMENT) {
      return transactions.run(JournalMapper.class, m -> m.markSent(eventIds));
    }
    return transactions.run(
        JournalMapper.class,
        m -> {
          int n = 0;
          for (int i = 0; i < eventIds.size(); i += MAX_ROWS_PER_STATEMENT) {
            n +=
                m.markSent(
                    eventIds.subList(i, Math.min(eventIds.size(), i + MAX_ROWS_PER_STATEMENT)));
          }
          return n;
        });
  }

  /** PROXY_ACK mode after the first commit: PENDING → SENT with the half message's id. */
  public int markSentByProducer(String eventId, String brokerMessageId) throws Exception {
    return transactions.run(
        JournalMapper.class, m -> m.markSentByProducer(eventId, brokerMessageId));
  }

  /**
   * The broker acknowledged these sends (event id → message id), recorded in one transaction of one
   * set-based statement per {@link #MAX_ROWS_PER_STATEMENT} rows: with {@code sentOnAck} the
   * PENDING rows become SENT; otherwise they stay PENDING for the confirm group, due again {@code
   * republishAfterMillis} from now. Returns the rows updated.
   */
  public int recordSendOks(Map<String, String> sent, boolean sentOnAck, long republishAfterMillis)
      throws Exception {
    return recordSendOks(sent, sentOnAck, republishAfterMillis, MAX_ROWS_PER_STATEMENT);
  }

  /**
   * As {@link #recordSendOks(Map, boolean, long)} with at most {@code rowsPerStatement} rows per
   * statement (1 to {@link #MAX_ROWS_PER_STATEMENT}); 1 runs one single-row UPDATE per row, the
   * statements used before the set-based ones (kept to compare the two).
   */
  public int recordSendOks(
      Map<String, String> sent, boolean sentOnAck, long republishAfterMillis, int rowsPerStatement)
      throws Exception {
    if (rowsPerStatement < 1 || rowsPerStatement > MAX_ROWS_PER_STATEMENT) {
      throw new IllegalArgumentException(
          "rowsPerStatement must be 1.." + MAX_ROWS_PER_STATEMENT + ": " + rowsPerStatement);
    }
    if (sent.isEmpty()) {
      return 0;
    }
    return transactions.run(
        JournalMapper.class,
        m -> {
          int n = 0;
          if (rowsPerStatement == 1) {
            for (Map.Entry<String, String> s : sent.entrySet()) {
              n +=
                  sentOnAck
                      ? m.markSentByProducer(s.getKey(), s.getValue())
                      : m.awaitConfirmation(s.getKey(), s.getValue(), republishAfterMillis);
            }
            return n;
          }
          Map<String, String> chunk = new LinkedHashMap<>();
          for (Map.Entry<String, String> s : sent.entrySet()) {
            chunk.put(s.getKey(), s.getValue());
            if (chunk.size() == rowsPerStatement) {
              n += recordChunk(m, chunk, sentOnAck, republishAfterMillis);
              chunk = new LinkedHashMap<>();
            }
          }
          if (!chunk.isEmpty()) {
            n += recordChunk(m, chunk, sentOnAck, republishAfterMillis);
          }
          return n;
        });
  }

  private static int recordChunk(
      JournalMapper m, Map<String, String> chunk, boolean sentOnAck, long republishAfterMillis) {
    return sentOnAck
        ? m.markSentByProducerAll(chunk)
        : m.awaitConfirmationAll(chunk, republishAfterMillis);
  }

  // ---- the reconciler and the give-up drain, each in a short transaction of its own

  /**
   * The give-up drain's claim of one row whose half message the broker stopped checking: PENDING,
   * RETRY and lease-expired SENDING rows (and SENT ones when {@code includeSent}) become SENDING
   * for {@code ownerToken}, with BROKER_GAVE_UP recorded. False when the row is settled or leased.
   */
  public boolean claimGivenUp(
      String eventId, String ownerToken, long leaseMillis, boolean includeSent) throws Exception {
    return transactions.run(
            JournalMapper.class, m -> m.claimGivenUp(eventId, ownerToken, leaseMillis, includeSent))
        == 1;
  }

  /**
   * Republishes accepted ({@code brokerMessageIds}: event id → message id), recorded in one UPDATE
   * for the rows {@code ownerToken} still owns: back to PENDING awaiting confirmation, due again
   * {@code republishAfterMillis} from now. Returns the rows updated.
   */
  public int republished(
      Map<String, String> brokerMessageIds, String ownerToken, long republishAfterMillis)
      throws Exception {
    return transactions.run(
        JournalMapper.class,
        m -> m.republishedAll(brokerMessageIds, ownerToken, republishAfterMillis));
  }

  /**
   * As {@link #republished}, but SENT at once (the broker's acknowledgement is the confirmation).
   */
  public int republishedSent(Map<String, String> brokerMessageIds, String ownerToken)
      throws Exception {
    return transactions.run(
        JournalMapper.class, m -> m.republishedSentAll(brokerMessageIds, ownerToken));
  }

  /** A retryable republish failure: RETRY, due again {@code delayMillis} from now. */
  public int retry(
      String eventId, String ownerToken, long delayMillis, String errorCode, String errorMessage)
      throws Exception {
    return transactions.run(
        JournalMapper.class,
        m -> m.retry(eventId, ownerToken, delayMillis, errorCode, errorMessage));
  }

  /** A permanent republish failure: DEAD with the error. */
  public int dead(String eventId, String ownerToken, String errorCode, String errorMessage)
      throws Exception {
    return transactions.run(
        JournalMapper.class, m -> m.dead(eventId, ownerToken, errorCode, errorMessage));
  }

  /** RETRY rows of {@code storeId} created before now − maxAgeMillis become DEAD (TOO_OLD). */
  public int deadTooOld(String storeId, long maxAgeMillis) throws Exception {
    return transactions.run(JournalMapper.class, m -> m.deadTooOld(storeId, maxAgeMillis));
  }
}
