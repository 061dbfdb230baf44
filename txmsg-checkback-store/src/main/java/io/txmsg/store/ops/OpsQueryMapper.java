package io.txmsg.store.ops;

import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.ReplayRequestRow;
import io.txmsg.store.journal.JournalRow;
import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * Read-only statements for operators (the CLI, dashboards): listings, counts and the rows an event
 * left in every table. SQL in {@code OpsQueryMapper.xml}; run by {@link OpsQueries}. Listings never
 * read payloads; the single-row reads do, and the caller decides whether to show them.
 */
interface OpsQueryMapper {
  /** Journal rows without their payload, ordered by (created_at, event_id). */
  List<JournalRow> listJournal(@Param("q") JournalQuery q);

  /** 1 when the journal has this event id, else 0. */
  int journalExists(@Param("eventId") String eventId);

  /**
   * Row counts per (status, destination), SENT included: reads every row of the journal (what
   * {@code txmsg journal stats} shows an operator who asked). Periodic callers use {@link
   * #unfinishedJournalCounts}.
   */
  List<JournalCount> journalCounts();

  /**
   * Row counts per (status, destination) of the rows not SENT (PENDING, SENDING, RETRY, DEAD):
   * served by {@code journal_due_ix}, so it reads the backlog, not the table.
   */
  List<JournalCount> unfinishedJournalCounts();

  /**
   * The journal rows of one store id that are not SENT (PENDING, SENDING, RETRY, DEAD): the rows
   * only a producer running with that store id sends, confirms, retries or re-queues.
   */
  long unsentJournalRows(@Param("storeId") String storeId);

  /** The oldest created_at per unfinished status (PENDING, SENDING, RETRY) and the database now. */
  List<JournalOldest> journalOldest();

  /** PARKED dead letters per consumer group (groups without any are absent). */
  List<ParkedCount> parkedCounts();

  /** Event ids whose journal row carries this business key (newest first). */
  List<String> journalEventIdsByBusinessKey(
      @Param("businessKey") String businessKey, @Param("limit") int limit);

  /** Valid indexes of the journal whose first column is business_key (0 or more). */
  int journalBusinessKeyIndexes();

  /** Event ids whose dead letters carry this business key (newest first). */
  List<String> deadLetterEventIdsByBusinessKey(
      @Param("businessKey") String businessKey, @Param("limit") int limit);

  /** Every consumer group's consume-log row for an event. */
  List<ConsumeLogRow> consumeLogByEvent(@Param("eventId") String eventId);

  /** Every dead letter of an event (all groups, both kinds), with payload. */
  List<DeadLetterRow> deadLettersByEvent(@Param("eventId") String eventId);

  /**
   * The dead letters of one group and event (a MESSAGE and possibly CONFLICT rows), with payload.
   */
  List<DeadLetterRow> findDeadLetters(
      @Param("consumerGroup") String consumerGroup, @Param("eventId") String eventId);

  /** Dead letters without payload, ordered by (created_at, consumer_group, event_id). */
  List<DeadLetterRow> listDeadLetters(@Param("q") DeadLetterQuery q);

  /** Replay audit rows by request id. */
  List<ReplayRequestRow> replayAudits(@Param("requestIds") List<String> requestIds);
}
