package io.txmsg.store.archive;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Moves terminal rows older than a retention from the journal, consume log and attempt tables to
 * their {@code *_archive} twins (or deletes them), in bounded batches of one short transaction
 * each: select up to {@code batchSize} keys, copy them, delete them. Long transactions would hold
 * locks and bloat undo logs on the live tables the producer and consumers write to.
 *
 * <p>Only terminal rows are eligible: journal SENT, consume log SUCCESS / SKIPPED_STALE, and
 * attempts of any state. PENDING, SENDING, RETRY, DEAD and PARKED rows are never touched. A
 * consume-log retention shorter than the redelivery/replay window is refused: a redelivered or
 * replayed event whose consume-log row is gone would be applied a second time.
 *
 * <p>Used by the CLI and meant to be scheduled by the application. Safe to run concurrently with
 * itself: a batch that loses a race (copy and delete counts differ, its rows vanished, or another
 * archiver's copy holds the archive key) is rolled back and retried with fresh keys; after a few
 * conflicts in a row the run fails (e.g. rows present in both the live and the archive table, which
 * the archiver never overwrites).
 */
public final class Archiver {
  /** The consume-log retention floor used when the caller does not say otherwise. */
  public static final Duration DEFAULT_MIN_CONSUME_LOG_RETENTION = Duration.ofDays(7);

  /** Hard cap of rows per batch: bounds the IN list (PostgreSQL allows 32767 bind values). */
  public static final int MAX_BATCH_SIZE = 10_000;

  private static final int MAX_CONFLICT_RETRIES = 10;

  /** {@link #batch} result when the batch was rolled back after losing a race. */
  private static final int CONFLICT = -1;

  /** The archived tables. */
  public enum Table {
    JOURNAL,
    CONSUME_LOG,
    ATTEMPT;

    /** The table name without prefix, as operators know it. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The {@code archive_run} column counting this table's rows. */
    String runColumn() {
      return label() + "_rows";
    }
  }

  /** The {@code mode} of an {@code archive_run} row. */
  public enum RunMode {
    /** Copied to the {@code *_archive} tables, then deleted from the live ones. */
    MOVE,
    /** Deleted from the live tables without a copy. */
    DELETE
  }

  /** The {@code status} of an {@code archive_run} row. */
  public enum RunStatus {
    /** Started and not ended: still going, or the process died (its counts are what committed). */
    RUNNING,
    /** Every enabled table was archived until nothing eligible was left. */
    DONE,
    /** Stopped by an error, recorded in {@code error_message}; committed batches stay archived. */
    FAILED
  }

  /** Longest {@link Audit#operator()} the {@code archive_run} table holds. */
  public static final int MAX_OPERATOR_LENGTH = 128;

  /** Longest {@link Audit#reason()} the {@code archive_run} table holds. */
  public static final int MAX_REASON_LENGTH = 512;

  /**
   * Who runs an archive and why, recorded in {@code <prefix>archive_run} before the first batch.
   *
   * @param operator who runs it (at most {@link #MAX_OPERATOR_LENGTH} characters)
   * @param reason why (at most {@link #MAX_REASON_LENGTH} characters)
   */
  public record Audit(String operator, String reason) {
    /**
     * Strips both values.
     *
     * @throws IllegalArgumentException naming the field when it is blank or longer than the column
     */
    public Audit {
      operator = requireText("operator", operator, MAX_OPERATOR_LENGTH);
      reason = requireText("reason", reason, MAX_REASON_LENGTH);
    }

    private static String requireText(String field, String value, int max) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(field + " must not be blank");
      }
      String v = value.strip();
      if (v.length() > max) {
        throw new IllegalArgumentException(
            field + " is " + v.length() + " characters long; at most " + max + " are recorded");
      }
      return v;
    }
  }

  /**
   * What to archive. A null retention skips that table.
   *
   * @param minConsumeLogRetention the redelivery/replay window; a shorter consume-log retention is
   *     refused
   * @param delete delete the rows instead of copying them to the archive tables
   */
  public record Policy(
      Duration journalRetention,
      Duration consumeLogRetention,
      Duration attemptRetention,
      Duration minConsumeLogRetention,
      int batchSize,
      boolean delete) {
    /**
     * @throws IllegalArgumentException for a negative retention, a batch size outside 1..{@value
     *     MAX_BATCH_SIZE}, or a consume-log retention shorter than the minimum
     */
    public Policy {
      if (minConsumeLogRetention == null) {
        minConsumeLogRetention = DEFAULT_MIN_CONSUME_LOG_RETENTION;
      }
      for (Duration d :
          new Duration[] {
            journalRetention, consumeLogRetention, attemptRetention, minConsumeLogRetention
          }) {
        if (d != null && d.isNegative()) {
          throw new IllegalArgumentException("retention must not be negative, was " + d);
        }
      }
      if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
        throw new IllegalArgumentException(
            "batch size must be 1.." + MAX_BATCH_SIZE + ", was " + batchSize);
      }
      if (consumeLogRetention != null
          && consumeLogRetention.compareTo(minConsumeLogRetention) < 0) {
        throw new IllegalArgumentException(
            "consume-log retention "
                + consumeLogRetention
                + " is shorter than the redelivery/replay window "
                + minConsumeLogRetention
                + ": a redelivered or replayed event would no longer be recognised as a duplicate");
      }
    }

    /** The retention of a table, or null when it is skipped. */
    public Duration retention(Table table) {
      return switch (table) {
        case JOURNAL -> journalRetention;
        case CONSUME_LOG -> consumeLogRetention;
        case ATTEMPT -> attemptRetention;
      };
    }
  }

  /** One committed batch, for progress reports. */
  public record Batch(Table table, int number, int rows, long tableRows, double rowsPerSecond) {}

  /** The outcome for one table. */
  public record TableResult(Table table, long rows, Duration elapsed) {
    public double rowsPerSecond() {
      return perSecond(rows, elapsed.toNanos());
    }
  }

  /**
   * The outcome of a run, per table in the order archived.
   *
   * @param runId the run's row in {@code <prefix>archive_run}
   */
  public record Result(String runId, List<TableResult> tables, boolean deleted) {
    public long totalRows() {
      return tables.stream().mapToLong(TableResult::rows).sum();
    }
  }

  private final StoreTransactions transactions;

  public Archiver(DataSource dataSource, TxmsgStore store) {
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /** How many rows each enabled table would archive now (the dry run). Changes nothing. */
  public Map<Table, Long> countEligible(Policy policy) throws Exception {
    Map<Table, Long> out = new EnumMap<>(Table.class);
    for (Table t : Table.values()) {
      Duration r = policy.retention(t);
      if (r != null) {
        long ms = r.toMillis();
        out.put(
            t,
            transactions.run(
                ArchiveMapper.class,
                m ->
                    switch (t) {
                      case JOURNAL -> m.countJournal(ms);
                      case CONSUME_LOG -> m.countConsumeLog(ms);
                      case ATTEMPT -> m.countAttempt(ms);
                    }));
      }
    }
    return out;
  }

  /**
   * Archives every enabled table until no eligible row is left, recording the run in {@code
   * <prefix>archive_run}: a RUNNING row before the first batch (if it cannot be written, nothing is
   * archived), each batch's rows added in the batch's own transaction, then DONE, or FAILED with
   * the error.
   *
   * @param progress called after each committed batch
   * @throws Exception a database failure; batches committed before it stay archived and counted
   */
  public Result run(Policy policy, Audit audit, Consumer<Batch> progress) throws Exception {
    String runId = UUID.randomUUID().toString();
    transactions.run(
        ArchiveMapper.class,
        m -> {
          m.insertRun(
              runId,
              audit.operator(),
              audit.reason(),
              policy.delete() ? RunMode.DELETE : RunMode.MOVE);
          return null;
        });
    List<TableResult> results = new ArrayList<>();
    try {
      for (Table t : Table.values()) {
        if (policy.retention(t) != null) {
          results.add(runTable(runId, t, policy, progress));
        }
      }
    } catch (Exception | Error e) {
      finish(runId, RunStatus.FAILED, e);
      throw e;
    }
    finish(runId, RunStatus.DONE, null);
    return new Result(runId, List.copyOf(results), policy.delete());
  }

  /** The newest recorded runs first, at most {@code limit}. */
  public List<ArchiveRunRow> recentRuns(int limit) throws Exception {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    return transactions.run(ArchiveMapper.class, m -> m.recentRuns(limit));
  }

  /**
   * Ends the run's row. When a FAILED run cannot be recorded either (the database is gone), the
   * original error is what the caller gets, with this one suppressed: the row stays RUNNING.
   */
  private void finish(String runId, RunStatus status, Throwable cause) throws Exception {
    String message = cause == null ? null : errorMessage(cause);
    try {
      transactions.run(ArchiveMapper.class, m -> m.finishRun(runId, status, message));
    } catch (Exception e) {
      if (cause == null) {
        throw e;
      }
      cause.addSuppressed(e);
    }
  }

  /** The database's own words when there are some (MyBatis wraps them in its SQL dump). */
  private static String errorMessage(Throwable e) {
    SQLException sql = SqlStates.find(e);
    String m =
        sql != null
            ? "SQLState " + sql.getSQLState() + ": " + sql.getMessage()
            : e.getClass().getSimpleName() + ": " + e.getMessage();
    m = m.replace('\n', ' ').replace('\r', ' ').strip();
    return m.length() <= MAX_REASON_LENGTH ? m : m.substring(0, MAX_REASON_LENGTH - 3) + "...";
  }

  private TableResult runTable(String runId, Table table, Policy policy, Consumer<Batch> progress)
      throws Exception {
    long start = System.nanoTime();
    long total = 0;
    int number = 0;
    int conflicts = 0;
    while (true) {
      int moved = batch(runId, table, policy);
      if (moved == CONFLICT) {
        // Retry with fresh keys, but do not spin forever against a persistent cause.
        if (++conflicts > MAX_CONFLICT_RETRIES) {
          throw new IllegalStateException(
              table.label()
                  + ": "
                  + conflicts
                  + " batches in a row lost a race (a concurrent archiver, or rows present in"
                  + " both the live and the archive table); run again later");
        }
        // A short random pause so that two archivers stop colliding on the same keys.
        Thread.sleep(ThreadLocalRandom.current().nextLong(5, 20L * conflicts + 5));
        continue;
      }
      conflicts = 0;
      if (moved == 0) {
        break;
      }
      total += moved;
      progress.accept(
          new Batch(table, ++number, moved, total, perSecond(total, System.nanoTime() - start)));
      if (moved < policy.batchSize()) {
        break;
      }
    }
    return new TableResult(table, total, Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * One batch in one transaction: the rows moved; 0 when nothing is eligible; {@link #CONFLICT}
   * when it was rolled back after losing a race.
   */
  private int batch(String runId, Table table, Policy policy) throws Exception {
    long ms = policy.retention(table).toMillis();
    int limit = policy.batchSize();
    boolean delete = policy.delete();
    try {
      return transactions.run(
          ArchiveMapper.class,
          m -> counted(m, runId, table, moveBatch(m, table, ms, limit, delete)));
    } catch (BatchConflict e) {
      return CONFLICT;
    } catch (Exception e) {
      if (lostRace(e)) {
        return CONFLICT;
      }
      throw e;
    }
  }

  /** Adds a batch's rows to its run in the batch's transaction: the count commits with the rows. */
  private static int counted(ArchiveMapper m, String runId, Table table, int moved) {
    if (moved > 0 && m.addRunRows(runId, table.runColumn(), moved) != 1) {
      throw new IllegalStateException("archive_run row " + runId + " is gone; batch rolled back");
    }
    return moved;
  }

  private static int moveBatch(ArchiveMapper m, Table table, long ms, int limit, boolean delete) {
    return switch (table) {
      case JOURNAL -> {
        List<String> ids = m.selectJournal(ms, limit);
        yield ids.isEmpty()
            ? 0
            : delete
                ? nonEmpty(m.deleteJournal(ms, ids))
                : checked(m.copyJournal(ms, ids), m.deleteJournal(ms, ids));
      }
      case CONSUME_LOG -> {
        List<ArchiveMapper.ConsumeLogKey> keys = m.selectConsumeLog(ms, limit);
        yield keys.isEmpty()
            ? 0
            : delete
                ? nonEmpty(m.deleteConsumeLog(ms, keys))
                : checked(m.copyConsumeLog(ms, keys), m.deleteConsumeLog(ms, keys));
      }
      case ATTEMPT -> {
        List<String> ids = m.selectAttempt(ms, limit);
        yield ids.isEmpty()
            ? 0
            : delete
                ? nonEmpty(m.deleteAttempt(ms, ids))
                : checked(m.copyAttempt(ms, ids), m.deleteAttempt(ms, ids));
      }
    };
  }

  /**
   * A failure that only means "another archiver got there first", already rolled back: a duplicate
   * archive key (its copy committed first), a deadlock or serialization failure (SQLState class 40:
   * MariaDB 1213 when two copies lock the same rows in different orders), or a lock timeout.
   */
  private static boolean lostRace(Exception e) {
    if (SqlStates.isDuplicateKey(e) || SqlStates.isLockTimeout(e)) {
      return true;
    }
    SQLException sql = SqlStates.find(e);
    return sql != null && sql.getSQLState() != null && sql.getSQLState().startsWith("40");
  }

  /** Keys were selected but none could be moved: they vanished (a concurrent archiver). */
  private static int nonEmpty(int moved) {
    if (moved == 0) {
      throw new BatchConflict();
    }
    return moved;
  }

  /**
   * The rows deleted must be exactly the rows copied; otherwise throwing makes StoreTransactions
   * roll the batch back, so a row is never deleted without its archive copy.
   */
  private static int checked(int copied, int deleted) {
    if (copied != deleted || deleted == 0) {
      throw new BatchConflict();
    }
    return deleted;
  }

  private static double perSecond(long rows, long nanos) {
    return nanos <= 0 ? 0 : rows * 1_000_000_000.0 / nanos;
  }

  /** Signals a rolled-back batch whose copy and delete counts differed. */
  private static final class BatchConflict extends RuntimeException {
    BatchConflict() {
      super(null, null, false, false);
    }
  }
}
