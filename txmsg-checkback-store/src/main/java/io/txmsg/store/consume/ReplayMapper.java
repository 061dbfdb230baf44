package io.txmsg.store.consume;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * Replay requests (SQL in ReplayMapper.xml). The CLI inserts the request and marks the selected
 * dead letters REPLAY_REQUESTED in one transaction; the application's replay worker claims the
 * request (REQUESTED → RUNNING), replays the marked rows in aggregate-version order and writes the
 * counts back.
 */
interface ReplayMapper {
  int insertRequest(@Param("row") ReplayRequestRow row);

  /** The parked MESSAGE dead letters a selector matches (for a dry run and the count). */
  List<DeadLetterRow> selectParked(@Param("s") DeadLetterSelector selector, @Param("limit") int n);

  /** PARKED → REPLAY_REQUESTED for the selector's rows, tagged with the request id. */
  int markRequested(@Param("s") DeadLetterSelector selector, @Param("requestId") String requestId);

  ReplayRequestRow findRequest(@Param("requestId") String requestId);

  /** Requests waiting for a worker of one of these groups, oldest first. */
  List<String> selectWaiting(@Param("groups") List<String> groups);

  /** REQUESTED → RUNNING: exactly one worker gets 1. */
  int claimRequest(@Param("requestId") String requestId);

  /** The request's rows still to replay, in aggregate-version order. */
  List<DeadLetterRow> selectRequested(
      @Param("requestId") String requestId, @Param("limit") int limit);

  int progress(
      @Param("requestId") String requestId,
      @Param("succeeded") int succeeded,
      @Param("failed") int failed);

  int finishRequest(
      @Param("requestId") String requestId,
      @Param("status") ReplayStatus status,
      @Param("stoppedReason") String stoppedReason);

  /** After a stop or a failure, the rows not replayed go back to PARKED for a later request. */
  int releaseRemaining(@Param("requestId") String requestId);
}
