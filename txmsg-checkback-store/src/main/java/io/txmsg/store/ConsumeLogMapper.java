package io.txmsg.store;

import org.apache.ibatis.annotations.Param;

/**
 * The consume log (SQL in ConsumeLogMapper.xml). The primary key (consumer_group, event_id) is the
 * dedup claim: the INSERT is the claim, never "select then insert".
 */
public interface ConsumeLogMapper {
  /** The claim, inside the handler's transaction; a duplicate key means someone claimed it. */
  int insertProcessing(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("eventType") String eventType,
      @Param("requestHash") String requestHash);

  /** Parking in its own transaction: a PARKED row (duplicate key: re-read the existing row). */
  int insertParked(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("eventType") String eventType,
      @Param("requestHash") String requestHash,
      @Param("attempt") int attempt);

  /** PROCESSING → SUCCESS or SKIPPED_STALE at the end of the claiming transaction; 1 row. */
  int finish(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("status") String status,
      @Param("resultRef") String resultRef,
      @Param("attempt") int attempt);

  /**
   * A replay's claim: PARKED → PROCESSING inside the handler's transaction; 0 rows = not parked.
   */
  int claimParked(@Param("group") String group, @Param("eventId") String eventId);

  ConsumeLogRow find(@Param("group") String group, @Param("eventId") String eventId);

  /** The archived row of an event (archived consume-log rows are SUCCESS or SKIPPED_STALE). */
  ConsumeLogRow findArchived(@Param("group") String group, @Param("eventId") String eventId);

  long countByStatus(@Param("group") String group, @Param("status") String status);
}
