package io.txmsg.store.consume;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/** Parked messages and payload conflicts (SQL in DeadLetterMapper.xml). */
interface DeadLetterMapper {
  int insert(@Param("row") DeadLetterRow row);

  List<DeadLetterRow> findByEvent(@Param("group") String group, @Param("eventId") String eventId);

  /** The replayable dead letter of an event: kind MESSAGE, status PARKED or REPLAY_REQUESTED. */
  DeadLetterRow findReplayable(@Param("group") String group, @Param("eventId") String eventId);

  /** Inside the replay's transaction: PARKED / REPLAY_REQUESTED → REPLAYED. */
  int markReplayed(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("requestHash") String requestHash,
      @Param("replayRequestId") String replayRequestId);

  /** Closes a dead letter without applying it (a duplicate found in the archive, a conflict). */
  int discard(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("requestHash") String requestHash,
      @Param("replayRequestId") String replayRequestId,
      @Param("note") String note);

  /** A failed replay leaves the row parked with the new error. */
  int recordReplayFailure(
      @Param("group") String group,
      @Param("eventId") String eventId,
      @Param("requestHash") String requestHash,
      @Param("errorClass") String errorClass,
      @Param("errorMessage") String errorMessage);
}
