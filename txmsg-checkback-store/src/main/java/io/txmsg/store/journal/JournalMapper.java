package io.txmsg.store.journal;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * Statements on the journal table (SQL in JournalMapper.xml, per dialect where it differs), run by
 * {@link Journal} and {@link JournalClaims}.
 */
interface JournalMapper {
  /**
   * Inserts a PENDING row whose next_retry_at is the database's now + {@link
   * JournalRow#getRepublishAfterMillis()}.
   */
  int insert(JournalRow row);

  /** Inserts a PENDING row whose next_retry_at is the database's now + republishAfterMillis. */
  default int insert(JournalRow row, long republishAfterMillis) {
    row.setRepublishAfterMillis(republishAfterMillis);
    return insert(row);
  }

  JournalRow findById(@Param("eventId") String eventId);

  /**
   * Joined publish: inserts the row unless its eventId exists; 0 when it exists (PostgreSQL), or a
   * duplicate key that rolled back this statement only (H2, MariaDB).
   */
  int insertIfAbsent(JournalRow row);

  /** Joined publish: the existing row's event id, attempt id and payload hash, locked. */
  JournalRow lockExisting(@Param("eventId") String eventId);

  /** The rows among these that {@code ownerToken} still owns (a reconciler round's claim). */
  List<JournalRow> findOwned(
      @Param("eventIds") List<String> eventIds, @Param("ownerToken") String ownerToken);

  /** Delivery confirmation: PENDING/SENDING/RETRY rows among these become SENT. */
  int markSent(@Param("eventIds") List<String> eventIds);

  /**
   * Counts a check-back on the row (for incidents: "how often did the broker ask about the half
   * message of the attempt that committed this row?"). Counts only when {@code attemptId} is the
   * row's {@code attempt_id}: check-backs of an earlier, dead attempt of the same eventId are not
   * counted. Returns 0 then (or when there is no row).
   */
  int recordCheckback(@Param("eventId") String eventId, @Param("attemptId") String attemptId);

  /**
   * Candidates for the reconciler: PENDING/RETRY rows due, and SENDING rows whose lease expired.
   * PostgreSQL and MariaDB lock them with FOR UPDATE SKIP LOCKED (call inside a short transaction
   * followed by {@link #claimAll}); H2 returns them unlocked and relies on the conditional {@link
   * #claim}. Only rows of {@code storeId}: several stores may share the tables and publish through
   * different brokers.
   */
  List<DueRow> selectDue(@Param("storeId") String storeId, @Param("limit") int limit);

  /**
   * The self-check of an OUTBOX execute, its last statement: this execute's own journal row, locked
   * ({@code WHERE event_id = ? AND attempt_id = ? FOR UPDATE}). Null when the database discarded
   * the transaction (MariaDB after a deadlock); throws on PostgreSQL's aborted transaction.
   */
  String selectOwnForUpdate(@Param("eventId") String eventId, @Param("attemptId") String attemptId);

  /**
   * The events {@code TxContext.publish} added in the call that committed {@code primaryEventId}:
   * rows with its attempt id and origin time (served by journal_created_ix), sorted by eventId.
   */
  List<String> publishedWith(
      @Param("createdAt") java.time.Instant createdAt,
      @Param("attemptId") String attemptId,
      @Param("primaryEventId") String primaryEventId);

  /**
   * FIFO order for one row about to be sent: how many rows hold it back (a lower aggregate_version
   * of its aggregate in its store that is PENDING, SENDING, RETRY or DEAD; another row of its
   * message group SENDING under a live lease). 0 = it may go now. Served by journal_aggregate_ix
   * and journal_due_ix.
   */
  int orderBlockers(@Param("eventId") String eventId);

  /**
   * OUTBOX with CONSUMER confirmation, after SEND_OK: the row waits for the confirm group; it is
   * republished only if unconfirmed {@code republishAfterMillis} from now.
   */
  int awaitConfirmation(
      @Param("eventId") String eventId,
      @Param("brokerMessageId") String brokerMessageId,
      @Param("republishAfterMillis") long republishAfterMillis);

  /**
   * Unsent FIFO rows held back by a DEAD lower version of their aggregate (they wait until an
   * operator requeues or resolves it: docs/runbook.md).
   */
  int countBlockedByDead();

  /** Conditional claim of one due row: SENDING with a fresh owner token and lease. 0 = lost. */
  int claim(
      @Param("eventId") String eventId,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis);

  /**
   * Claims these candidates in one statement: each becomes SENDING for {@code ownerToken} with a
   * lease of {@code leaseMillis}. MariaDB/MySQL only, inside the transaction that locked them with
   * {@link #selectDue} FOR UPDATE: the statement tests the key alone and relies on that lock for
   * the rows being due. Returns how many.
   */
  int claimAll(
      @Param("eventIds") List<String> eventIds,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis);

  /**
   * PostgreSQL only: {@link #claimAll}'s claim, returning the claimed rows as they now are ({@code
   * UPDATE ... RETURNING}); the same precondition (rows locked by this transaction).
   */
  List<JournalRow> claimAllReturning(
      @Param("eventIds") List<String> eventIds,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis);

  /**
   * The give-up drain's claim of one row whose half message the broker stopped checking: PENDING,
   * RETRY and lease-expired SENDING rows (and SENT ones when {@code includeSent}, for PROXY_ACK)
   * become SENDING for {@code ownerToken}, with BROKER_GAVE_UP recorded. 0 = settled or leased.
   */
  int claimGivenUp(
      @Param("eventId") String eventId,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis,
      @Param("includeSent") boolean includeSent);

  /**
   * Republish accepted, only for the rows among these that the token still owns and that are
   * SENDING: back to PENDING awaiting confirmation, each with the message id its send returned
   * ({@code brokerMessageIds}: event id → message id), due again {@code republishAfterMillis} from
   * now. Returns the rows updated.
   */
  int republishedAll(
      @Param("brokerMessageIds") java.util.Map<String, String> brokerMessageIds,
      @Param("ownerToken") String ownerToken,
      @Param("republishAfterMillis") long republishAfterMillis);

  /** PROXY_ACK mode: as {@link #republishedAll}, but SENT at once. */
  int republishedSentAll(
      @Param("brokerMessageIds") java.util.Map<String, String> brokerMessageIds,
      @Param("ownerToken") String ownerToken);

  /**
   * SEND_OKs of a batch in one statement: the PENDING rows among these become SENT, each with its
   * own message id ({@code brokerMessageIds}: event id → message id). Returns the rows updated.
   */
  int markSentByProducerAll(
      @Param("brokerMessageIds") java.util.Map<String, String> brokerMessageIds);

  /**
   * As {@link #awaitConfirmation} for a batch in one statement: the PENDING rows among these get
   * their message id and are due again {@code republishAfterMillis} from now.
   */
  int awaitConfirmationAll(
      @Param("brokerMessageIds") java.util.Map<String, String> brokerMessageIds,
      @Param("republishAfterMillis") long republishAfterMillis);

  /** PROXY_ACK mode after the first commit: PENDING → SENT. */
  int markSentByProducer(
      @Param("eventId") String eventId, @Param("brokerMessageId") String brokerMessageId);

  int retry(
      @Param("eventId") String eventId,
      @Param("ownerToken") String ownerToken,
      @Param("delayMillis") long delayMillis,
      @Param("errorCode") String errorCode,
      @Param("errorMessage") String errorMessage);

  int dead(
      @Param("eventId") String eventId,
      @Param("ownerToken") String ownerToken,
      @Param("errorCode") String errorCode,
      @Param("errorMessage") String errorMessage);

  /** RETRY rows of {@code storeId} created before now − maxAgeMillis become DEAD (TOO_OLD). */
  int deadTooOld(@Param("storeId") String storeId, @Param("maxAgeMillis") long maxAgeMillis);

  long countByStatus(@Param("status") JournalStatus status);

  /**
   * DEAD → RETRY (due now) for the listed rows younger than {@code maxAgeMillis}; returns how many.
   */
  int requeueDead(
      @Param("eventIds") List<String> eventIds,
      @Param("maxAgeMillis") long maxAgeMillis,
      @Param("note") String note);

  /** Unconfirmed rows per destination with the oldest one's age (the pending gauges). */
  List<PendingByDestination> pendingByDestination();

  /**
   * Hung-instance takeover: the PENDING, not yet due HALF_MESSAGE rows of {@code storeId} committed
   * by {@code staleInstance} become due now and owned by {@code liveInstance}, with INSTANCE_STALE
   * and {@code note} in the error columns. Returns how many.
   */
  int takeOverInstance(
      @Param("storeId") String storeId,
      @Param("staleInstance") String staleInstance,
      @Param("liveInstance") String liveInstance,
      @Param("note") String note);

  /** SENDING rows whose lease ran out (a reconciler died or stalled holding them). */
  int countExpiredLeases();
}
