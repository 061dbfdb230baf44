package io.txmsg.producer;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.CheckbackResolver;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.Resolution;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.AttemptInsert;
import io.txmsg.store.journal.AttemptState;
import io.txmsg.store.journal.Attempts;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The default check-back resolver: answers from the attempt and journal tables, never from memory,
 * and fences attempts that never reached the database.
 *
 * <ul>
 *   <li>another store's message → UNKNOWN (its own producer answers);
 *   <li>attempt COMMITTED → COMMIT; ROLLED_BACK or FENCED → ROLLBACK;
 *   <li>no attempt row: journal row with this attempt → COMMIT, with another attempt → ROLLBACK;
 *   <li>no row at all, checked fewer than {@code fenceAfterChecks} times (or younger than {@code
 *       fenceAfter} when the count is not reported) → UNKNOWN;
 *   <li>otherwise insert a FENCED attempt row with a bounded lock wait: inserted → ROLLBACK (the
 *       attempt can never commit now); the key exists → answer from its state; the key is locked
 *       (the attempt's transaction is running) → UNKNOWN;
 *   <li>any error → UNKNOWN.
 * </ul>
 *
 * <p>A producer registers one for its store by itself. An application resolver that answers from
 * its own tables first gets one to fall back to with {@link #of}.
 */
public final class JournalCheckbackResolver implements CheckbackResolver {
  private static final Logger log = LoggerFactory.getLogger(JournalCheckbackResolver.class);

  private final Journal journal;
  private final Attempts attempts;
  private final String storeId;
  private final int fenceAfterChecks;
  private final Duration fenceAfter;
  private final Duration fenceLockWait;
  private final ProducerMetrics metrics;

  /** A decision and why: the reason tag of {@code txmsg.checkback}. */
  private record Decision(Resolution resolution, String reason) {}

  /**
   * The journal resolver of the store {@code settings} describe (its {@code storeId}, {@code
   * tablePrefix} and fencing settings, read now: later changes to {@code settings} are not seen),
   * for an application resolver that falls back to it when its own tables do not know the event:
   *
   * <pre>{@code
   * JournalCheckbackResolver journal = JournalCheckbackResolver.of(dataSource, settings);
   * ...
   * return committedBy != null ? answerFrom(committedBy) : journal.resolve(request);
   * }</pre>
   *
   * Reads the database type from {@code dataSource} once, now (a connection is borrowed and
   * returned); checks nothing about the tables, which the producer verifies or creates when it
   * starts.
   *
   * @throws InvalidSettingsException when {@code dataSource} or {@code settings} is missing
   * @throws IllegalStateException when the database cannot be reached to read its type
   * @throws IllegalArgumentException for a database txmsg has no schema for
   */
  public static JournalCheckbackResolver of(DataSource dataSource, TxProducerSettings settings) {
    if (dataSource == null) {
      throw new InvalidSettingsException("dataSource", "is required");
    }
    if (settings == null) {
      throw new InvalidSettingsException("settings", "are required");
    }
    return new JournalCheckbackResolver(
        dataSource,
        TxmsgStore.detect(dataSource, settings.tablePrefix()),
        settings,
        ProducerMetrics.NONE);
  }

  /** With metrics: {@code txmsg.checkback} (resolution, reason) and its latency. */
  JournalCheckbackResolver(
      DataSource dataSource,
      TxmsgStore store,
      TxProducerSettings settings,
      ProducerMetrics metrics) {
    this.metrics = metrics;
    this.journal = new Journal(dataSource, store);
    this.attempts = new Attempts(dataSource, store);
    this.storeId = settings.storeId();
    this.fenceAfterChecks = settings.fenceAfterChecks();
    this.fenceAfter = settings.fenceAfter();
    this.fenceLockWait = settings.fenceLockWait();
  }

  @Override
  public Resolution resolve(CheckbackRequest request) {
    long start = System.nanoTime();
    try {
      Decision d = decide(request);
      if (d.resolution() == Resolution.COMMIT) {
        // Every COMMIT found a committed attempt: counted on its journal row, whichever read
        // found it (an incident counter; the answer stands if the count fails).
        recordCheckback(request.eventId(), request.attemptId());
      }
      metrics.checkback(d.resolution().name(), d.reason(), System.nanoTime() - start);
      // COMMIT of a found row is the common answer: DEBUG, so a check storm does not flood the
      // log; everything an operator investigates (UNKNOWN, ROLLBACK, fenced) stays at INFO.
      boolean routine = d.resolution() == Resolution.COMMIT;
      log.atLevel(routine ? Level.DEBUG : Level.INFO)
          .log(
              "check-back eventId={} attemptId={} checkTimes={} resolution={} reason={}",
              LogSafe.escape(request.eventId()),
              LogSafe.escape(request.attemptId()),
              request.checkTimes(),
              d.resolution(),
              d.reason());
      return d.resolution();
    } catch (Exception e) {
      metrics.checkback(Resolution.UNKNOWN.name(), "error", System.nanoTime() - start);
      log.warn(
          "check-back failed eventId={} attemptId={}: {} → UNKNOWN",
          LogSafe.escape(request.eventId()),
          LogSafe.escape(request.attemptId()),
          e.toString());
      return Resolution.UNKNOWN;
    }
  }

  private Decision decide(CheckbackRequest request) throws Exception {
    if (request.storeId() == null || !storeId.equals(request.storeId())) {
      return new Decision(Resolution.UNKNOWN, "error"); // not this store's message
    }
    if (request.attemptId() == null || request.eventId() == null) {
      return new Decision(Resolution.UNKNOWN, "error"); // no envelope: cannot be ours
    }
    AttemptState state = attempts.read(request.attemptId());
    if (state != null) {
      if (state == AttemptState.COMMITTED) {
        return new Decision(Resolution.COMMIT, "found");
      }
      return new Decision(Resolution.ROLLBACK, "tombstone");
    }
    JournalRow row = journal.find(request.eventId());
    if (row != null) {
      // Another attempt's row: the journal key already fences this one.
      return request.attemptId().equals(row.getAttemptId())
          ? new Decision(Resolution.COMMIT, "found")
          : new Decision(Resolution.ROLLBACK, "tombstone");
    }
    if (tooEarlyToFence(request)) {
      return new Decision(Resolution.UNKNOWN, "young");
    }
    AttemptInsert fence =
        attempts.insert(
            request.attemptId(), request.eventId(), storeId, AttemptState.FENCED, fenceLockWait);
    switch (fence.outcome()) {
      case INSERTED:
        log.warn(
            "attempt fenced eventId={} attemptId={}",
            LogSafe.escape(request.eventId()),
            LogSafe.escape(request.attemptId()));
        return new Decision(Resolution.ROLLBACK, "fenced");
      case EXISTS:
        if (fence.existingState() == AttemptState.COMMITTED) { // committed while we waited
          return new Decision(Resolution.COMMIT, "found");
        }
        return fence.existingState() == null
            ? new Decision(Resolution.UNKNOWN, "error")
            : new Decision(Resolution.ROLLBACK, "tombstone");
      default:
        // the attempt's own transaction holds the key: still running
        return new Decision(Resolution.UNKNOWN, "lock_timeout");
    }
  }

  private boolean tooEarlyToFence(CheckbackRequest request) {
    if (request.checkTimes() >= 0) {
      return request.checkTimes() < fenceAfterChecks;
    }
    Instant born = request.bornTime();
    return born == null || Duration.between(born, Instant.now()).compareTo(fenceAfter) < 0;
  }

  private void recordCheckback(String eventId, String attemptId) {
    try {
      journal.recordCheckback(eventId, attemptId);
    } catch (Exception e) {
      // Only the incident counter is lost; the answer stands.
      log.warn(
          "could not count the check-back eventId={}: {}", LogSafe.escape(eventId), e.toString());
    }
  }
}
