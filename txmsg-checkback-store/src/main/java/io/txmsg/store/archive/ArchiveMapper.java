package io.txmsg.store.archive;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * Statements of the {@link Archiver} (SQL in ArchiveMapper.xml). Every statement repeats the
 * "archivable" condition (terminal status, older than the retention by the database clock), so that
 * a row that changed after it was selected is neither copied nor deleted.
 */
interface ArchiveMapper {
  /** Primary key of a consume-log row. */
  final class ConsumeLogKey {
    private String consumerGroup;
    private String eventId;

    public String getConsumerGroup() {
      return consumerGroup;
    }

    public void setConsumerGroup(String consumerGroup) {
      this.consumerGroup = consumerGroup;
    }

    public String getEventId() {
      return eventId;
    }

    public void setEventId(String eventId) {
      this.eventId = eventId;
    }
  }

  long countJournal(@Param("retentionMillis") long retentionMillis);

  List<String> selectJournal(
      @Param("retentionMillis") long retentionMillis, @Param("limit") int limit);

  int copyJournal(
      @Param("retentionMillis") long retentionMillis, @Param("eventIds") List<String> eventIds);

  int deleteJournal(
      @Param("retentionMillis") long retentionMillis, @Param("eventIds") List<String> eventIds);

  long countConsumeLog(@Param("retentionMillis") long retentionMillis);

  List<ConsumeLogKey> selectConsumeLog(
      @Param("retentionMillis") long retentionMillis, @Param("limit") int limit);

  int copyConsumeLog(
      @Param("retentionMillis") long retentionMillis, @Param("keys") List<ConsumeLogKey> keys);

  int deleteConsumeLog(
      @Param("retentionMillis") long retentionMillis, @Param("keys") List<ConsumeLogKey> keys);

  long countAttempt(@Param("retentionMillis") long retentionMillis);

  List<String> selectAttempt(
      @Param("retentionMillis") long retentionMillis, @Param("limit") int limit);

  int copyAttempt(
      @Param("retentionMillis") long retentionMillis, @Param("attemptIds") List<String> attemptIds);

  int deleteAttempt(
      @Param("retentionMillis") long retentionMillis, @Param("attemptIds") List<String> attemptIds);

  /** Records a run as RUNNING before its first batch. */
  void insertRun(
      @Param("runId") String runId,
      @Param("operator") String operator,
      @Param("reason") String reason,
      @Param("mode") Archiver.RunMode mode);

  /**
   * Adds a batch's rows to its run, in the batch's transaction.
   *
   * @param column one of {@link Archiver.Table#runColumn()}, never caller text
   */
  int addRunRows(
      @Param("runId") String runId, @Param("column") String column, @Param("rows") long rows);

  /** Ends a run: DONE, or FAILED with its error. */
  int finishRun(
      @Param("runId") String runId,
      @Param("status") Archiver.RunStatus status,
      @Param("errorMessage") String errorMessage);

  /** The newest runs first (index archive_run_started_ix). */
  List<ArchiveRunRow> recentRuns(@Param("limit") int limit);
}
