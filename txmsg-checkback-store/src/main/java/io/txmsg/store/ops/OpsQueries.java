package io.txmsg.store.ops;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.journal.JournalRow;
import java.sql.Connection;
import java.util.List;

/**
 * Read-only queries for operators (the CLI, dashboards, the health indicator): listings, counts and
 * the rows an event left in every table. Each runs on the caller's connection, so that several make
 * one consistent read in one short transaction ({@code StoreTransactions.run}). Listings never read
 * payloads; the single-row reads do, and the caller decides whether to show them.
 */
public final class OpsQueries {
  private final TxmsgStore store;

  public OpsQueries(TxmsgStore store) {
    this.store = store;
  }

  /** Journal rows without their payload, ordered by (created_at, event_id). */
  public List<JournalRow> listJournal(Connection c, JournalQuery q) {
    return store.on(c, OpsQueryMapper.class, m -> m.listJournal(q));
  }

  /** 1 when the journal has this event id, else 0. */
  public int journalExists(Connection c, String eventId) {
    return store.on(c, OpsQueryMapper.class, m -> m.journalExists(eventId));
  }

  /**
   * Row counts per (status, destination), SENT included: reads every row of the journal (what
   * {@code txmsg journal stats} shows an operator who asked). Periodic callers use {@link
   * #unfinishedJournalCounts}.
   */
  public List<JournalCount> journalCounts(Connection c) {
    return store.on(c, OpsQueryMapper.class, OpsQueryMapper::journalCounts);
  }

  /**
   * Row counts per (status, destination) of the rows not SENT (PENDING, SENDING, RETRY, DEAD):
   * served by {@code journal_due_ix}, so it reads the backlog, not the table.
   */
  public List<JournalCount> unfinishedJournalCounts(Connection c) {
    return store.on(c, OpsQueryMapper.class, OpsQueryMapper::unfinishedJournalCounts);
  }

  /**
   * The journal rows of one store id that are not SENT (PENDING, SENDING, RETRY, DEAD): the rows
   * that only a producer running with that store id sends, confirms, retries or re-queues. Served
   * by the (status, next_retry_at) index: it reads the backlog, not the table.
   */
  public long unsentJournalRows(Connection c, String storeId) {
    return store.on(c, OpsQueryMapper.class, m -> m.unsentJournalRows(storeId));
  }

  /** The oldest created_at per unfinished status (PENDING, SENDING, RETRY) and the database now. */
  public List<JournalOldest> journalOldest(Connection c) {
    return store.on(c, OpsQueryMapper.class, OpsQueryMapper::journalOldest);
  }

  /** PARKED dead letters per consumer group (groups without any are absent). */
  public List<ParkedCount> parkedCounts(Connection c) {
    return store.on(c, OpsQueryMapper.class, OpsQueryMapper::parkedCounts);
  }

  /** Event ids whose journal row carries this business key (newest first). */
  public List<String> journalEventIdsByBusinessKey(Connection c, String businessKey, int limit) {
    return store.on(
        c, OpsQueryMapper.class, m -> m.journalEventIdsByBusinessKey(businessKey, limit));
  }

  /**
   * Whether an index serves {@link #journalEventIdsByBusinessKey}: any valid index of the journal
   * whose first column is {@code business_key}. Schema V6 made it opt-in ({@code txmsg schema
   * business-key-index} creates it); without it that search reads the whole journal.
   */
  public boolean journalBusinessKeyIndexed(Connection c) {
    return store.on(c, OpsQueryMapper.class, OpsQueryMapper::journalBusinessKeyIndexes) > 0;
  }

  /** Event ids whose dead letters carry this business key (newest first). */
  public List<String> deadLetterEventIdsByBusinessKey(Connection c, String businessKey, int limit) {
    return store.on(
        c, OpsQueryMapper.class, m -> m.deadLetterEventIdsByBusinessKey(businessKey, limit));
  }

  /** Every consumer group's consume-log row for an event. */
  public List<ConsumeLogRow> consumeLogByEvent(Connection c, String eventId) {
    return store.on(c, OpsQueryMapper.class, m -> m.consumeLogByEvent(eventId));
  }

  /** Every dead letter of an event (all groups, both kinds), with payload. */
  public List<DeadLetterRow> deadLettersByEvent(Connection c, String eventId) {
    return store.on(c, OpsQueryMapper.class, m -> m.deadLettersByEvent(eventId));
  }

  /**
   * The dead letters of one group and event (a MESSAGE and possibly CONFLICT rows), with payload.
   */
  public List<DeadLetterRow> findDeadLetters(Connection c, String consumerGroup, String eventId) {
    return store.on(c, OpsQueryMapper.class, m -> m.findDeadLetters(consumerGroup, eventId));
  }

  /** Dead letters without payload, ordered by (created_at, consumer_group, event_id). */
  public List<DeadLetterRow> listDeadLetters(Connection c, DeadLetterQuery q) {
    return store.on(c, OpsQueryMapper.class, m -> m.listDeadLetters(q));
  }

  /** Replay audit rows by request id. */
  public List<ReplayRequestRow> replayAudits(Connection c, List<String> requestIds) {
    return store.on(c, OpsQueryMapper.class, m -> m.replayAudits(requestIds));
  }
}
