package io.txmsg.cdc;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.txmsg.api.PublishException;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.transport.Backoff;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.ProducerChannel;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the journal inserts Debezium hands over, one at a time in commit order, and marks each
 * record processed only once it is settled: sent with SEND_OK, DEAD after a permanent refusal, or
 * held back by the FIFO order rule (left PENDING for the reconciler). Other records (heartbeats,
 * other stores' rows, rows of other modes) are settled as they are. Debezium stores an offset only
 * for processed records, so the relay resumes at the first unsettled one.
 *
 * <p>A retryable failure keeps the relay at that row: it is sent again after a backoff, never
 * skipped. Sends are synchronous, so at most one row of a message group is in flight.
 */
final class ChangeHandler
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  private static final Logger log = LoggerFactory.getLogger(ChangeHandler.class);

  private final RelayRun run;
  private final RelayConfig config;
  private final ProducerChannel channel;
  private final Backoff backoff;

  ChangeHandler(RelayRun run, RelayConfig config, ProducerChannel channel) {
    this.run = run;
    this.config = config;
    this.channel = channel;
    this.backoff = config.backoff();
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    int sent = 0;
    try {
      for (RecordChangeEvent<SourceRecord> event : records) {
        JournalRow row = JournalImage.cdcInsertOf(event.record(), config.storeId());
        if (row != null && relay(row)) {
          sent++;
        }
        committer.markProcessed(event);
      }
    } finally {
      if (sent > 0) {
        int count = sent;
        notifyListener(() -> config.listener().relayed(config.storeId(), count));
      }
    }
    committer.markBatchFinished();
  }

  @Override
  public boolean supportsTombstoneEvents() {
    return false;
  }

  /** Settles one row; true when it was sent. */
  private boolean relay(JournalRow row) throws InterruptedException {
    if (row.getMessageGroup() != null && heldBack(row)) {
      log.info(
          "cdc heldBack eventId={} aggregate={}:{} version={}: a lower version is unsent or DEAD,"
              + " or its group is in flight elsewhere; the reconciler sends it",
          row.getEventId(),
          row.getAggregateType(),
          row.getAggregateId(),
          row.getAggregateVersion());
      notifyListener(() -> config.listener().heldBack(row.getEventId()));
      return false;
    }
    for (int attempt = 1; ; attempt++) {
      run.awaitSendable();
      try {
        String messageId = channel.send(EnvelopeCodec.encode(row));
        run.recorder().add(row.getEventId(), messageId);
        log.debug("cdc sent eventId={} messageId={}", row.getEventId(), messageId);
        return true;
      } catch (PublishException e) {
        if (!e.retryable()) {
          dead(row, e);
          return false;
        }
        long wait = backoff.millis(attempt);
        int n = attempt;
        log.warn(
            "cdc send failed eventId={} code={} attempt={} retryInMs={}: {}",
            row.getEventId(),
            e.errorCode(),
            attempt,
            wait,
            e.getMessage());
        notifyListener(() -> config.listener().sendFailed(row.getEventId(), e, n, wait));
        run.pause(wait);
      }
    }
  }

  /**
   * The FIFO order rule: a lower version of the aggregate that is unsent (other than the rows this
   * run sent and has not recorded yet) or DEAD, or another row of the group in flight elsewhere.
   */
  private boolean heldBack(JournalRow row) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        // Read before the query: the recorder forgets a row only after its SENT committed, so a
        // row of this run is either in this set or no longer unsent in the query's result.
        Set<String> mine = run.recorder().unrecorded();
        List<String> blockers =
            run.store()
                .orderBlockers(
                    config.storeId(),
                    row.getEventId(),
                    row.getAggregateType(),
                    row.getAggregateId(),
                    row.getAggregateVersion(),
                    row.getMessageGroup());
        return !mine.containsAll(blockers);
      } catch (Exception e) {
        long wait = backoff.millis(attempt);
        log.warn(
            "cdc order check failed eventId={} retryInMs={}: {}",
            row.getEventId(),
            wait,
            e.toString());
        run.pause(wait);
      }
    }
  }

  /** Records a permanent refusal (DEAD, in a short transaction) before the relay goes on. */
  private void dead(JournalRow row, PublishException error) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      run.awaitSendable();
      try {
        int updated =
            run.store()
                .markDead(run.fence(), row.getEventId(), error.errorCode(), error.getMessage());
        if (updated == 0) {
          if (!run.store().holds(run.fence())) {
            run.lost("DEAD update fenced");
            throw new RelayStoppedException(run.stopReason());
          }
          JournalStatus status = run.store().journalStatus(row.getEventId());
          if (status == null || status == JournalStatus.PENDING) {
            // Not visible to a new transaction yet (see CdcRelayStore.settledAmong): again.
            run.pause(backoff.millis(attempt));
            continue;
          }
        }
        log.error(
            "cdc send failed permanently eventId={} code={} status=DEAD{}: {}",
            row.getEventId(),
            error.errorCode(),
            updated == 0 ? " (already settled by the reconciler)" : "",
            error.getMessage());
        notifyListener(() -> config.listener().dead(row.getEventId(), error));
        return;
      } catch (RelayStoppedException e) {
        throw e;
      } catch (Exception e) {
        long wait = backoff.millis(attempt);
        log.warn(
            "cdc DEAD not recorded eventId={} retryInMs={}: {}",
            row.getEventId(),
            wait,
            e.toString());
        run.pause(wait);
      }
    }
  }

  private void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("cdc listener failed: {}", e.toString());
    }
  }
}
