package io.txmsg.store.archive;

import java.time.Instant;

/**
 * One archive run as recorded in {@code <prefix>archive_run} (schema V3): who ran it, why, and the
 * rows each table gave up. The counts are added by each batch in the batch's own transaction, so
 * they are exactly what committed even when the run died (its row then stays RUNNING).
 */
public final class ArchiveRunRow {
  private String runId;
  private String operator;
  private String reason;
  private Archiver.RunMode mode;
  private Archiver.RunStatus status;
  private long journalRows;
  private long consumeLogRows;
  private long attemptRows;
  private String errorMessage;
  private Instant startedAt;
  private Instant finishedAt;

  /** The run's id (a UUID). */
  public String getRunId() {
    return runId;
  }

  public void setRunId(String runId) {
    this.runId = runId;
  }

  /** Who ran it. */
  public String getOperator() {
    return operator;
  }

  public void setOperator(String operator) {
    this.operator = operator;
  }

  /** Why. */
  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  /** MOVE (to the *_archive tables) or DELETE. */
  public Archiver.RunMode getMode() {
    return mode;
  }

  public void setMode(Archiver.RunMode mode) {
    this.mode = mode;
  }

  /** RUNNING, DONE or FAILED ({@link Archiver.RunStatus}). */
  public Archiver.RunStatus getStatus() {
    return status;
  }

  public void setStatus(Archiver.RunStatus status) {
    this.status = status;
  }

  /** Journal rows archived by committed batches. */
  public long getJournalRows() {
    return journalRows;
  }

  public void setJournalRows(long journalRows) {
    this.journalRows = journalRows;
  }

  /** Consume-log rows archived by committed batches. */
  public long getConsumeLogRows() {
    return consumeLogRows;
  }

  public void setConsumeLogRows(long consumeLogRows) {
    this.consumeLogRows = consumeLogRows;
  }

  /** Attempt rows archived by committed batches. */
  public long getAttemptRows() {
    return attemptRows;
  }

  public void setAttemptRows(long attemptRows) {
    this.attemptRows = attemptRows;
  }

  /** Why a FAILED run stopped; null otherwise. */
  public String getErrorMessage() {
    return errorMessage;
  }

  public void setErrorMessage(String errorMessage) {
    this.errorMessage = errorMessage;
  }

  /** When it started (database clock). */
  public Instant getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(Instant startedAt) {
    this.startedAt = startedAt;
  }

  /** When it ended; null while RUNNING or when it died. */
  public Instant getFinishedAt() {
    return finishedAt;
  }

  public void setFinishedAt(Instant finishedAt) {
    this.finishedAt = finishedAt;
  }
}
