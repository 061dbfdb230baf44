package io.txmsg.store.consume;

import org.apache.ibatis.annotations.Param;

/**
 * The consume log (SQL in ConsumeLogMapper.xml). The primary key (consumer_group, event_id) is the
 * dedup claim: the INSERT is the claim, never "select then insert".
 */
interface ConsumeLogMapper {
  /**
   * The claim, the first statement of the handler's transaction, inserted with the status it will
   * commit with ({@code SUCCESS}; PROCESSING is never visible outside the claiming transaction); a
   * duplicate key means someone claimed it.
   */
  int insertClaim(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("eventType") String eventType,
      @Param("requestHash") String requestHash,
      @Param("status") ConsumeStatus status,
      @Param("attempt") int attempt);

  /** Parking in its own transaction: a PARKED row (duplicate key: re-read the existing row). */
  int insertParked(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("eventType") String eventType,
      @Param("requestHash") String requestHash,
      @Param("attempt") int attempt);

  /**
   * The claim row's final status and result at the end of the claiming transaction, from {@code
   * claimed} (what the claim wrote: SUCCESS, or PROCESSING for a replay). Must touch 1 row: it is
   * also the transaction's self-check.
   */
  int finish(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("claimed") ConsumeStatus claimed,
      @Param("status") ConsumeStatus status,
      @Param("resultRef") String resultRef,
      @Param("attempt") int attempt);

  /**
   * A replay's claim: PARKED → PROCESSING inside the handler's transaction; 0 rows = not parked.
   */
  int claimParked(@Param("group") String group, @Param("eventId") String eventId);

  ConsumeLogRow find(@Param("group") String group, @Param("eventId") String eventId);

  /** The archived row of an event (archived consume-log rows are SUCCESS or SKIPPED_STALE). */
  ConsumeLogRow findArchived(@Param("group") String group, @Param("eventId") String eventId);
}
