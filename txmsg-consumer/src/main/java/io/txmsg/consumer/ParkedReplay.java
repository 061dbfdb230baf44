package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ParkedEvent;
import io.txmsg.store.HeadersCodec;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.IncomingEvent;
import io.txmsg.transport.MalformedEventException;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays parked events (an operator's replay request, run by {@link ReplayWorker}, or {@link
 * TxConsumers#replay} called directly): the dead letter's stored message is decoded again and run
 * through the same handler pipeline, with the consume-log claim PARKED → PROCESSING instead of the
 * INSERT. A TOO_OLD event the consume-log archive knows was applied before is discarded instead.
 * Every outcome is a {@link ReplayResult}; nothing is thrown for a single event.
 */
final class ParkedReplay {
  private static final Logger log = LoggerFactory.getLogger(ParkedReplay.class);

  private final ConsumeLog consumeLog;
  private final DeadLetters deadLetters;
  private final Map<String, Map<String, ConsumePipeline.Route>> routes;
  private final ConsumePipeline pipeline;
  private final ConsumeListener listener;

  ParkedReplay(
      ConsumeLog consumeLog,
      DeadLetters deadLetters,
      Map<String, Map<String, ConsumePipeline.Route>> routes,
      ConsumePipeline pipeline,
      ConsumeListener listener) {
    this.consumeLog = consumeLog;
    this.deadLetters = deadLetters;
    this.routes = routes;
    this.pipeline = pipeline;
    this.listener = listener;
  }

  /**
   * Replays one parked event of a group through the same handler pipeline: the consume-log row goes
   * PARKED → PROCESSING inside the handler's transaction and the dead letter is marked REPLAYED in
   * that same transaction, so a late redelivery and a replay never both apply it. Never sends
   * anything to the topic: other groups are not affected.
   *
   * @param replayRequestId the audit id recorded on the dead letter
   */
  ReplayResult replay(String group, String eventId, String replayRequestId) {
    Objects.requireNonNull(replayRequestId, "replayRequestId");
    DeadLetterRow row;
    try {
      row = deadLetters.findReplayable(group, eventId);
    } catch (Exception e) {
      return new ReplayResult(ReplayResult.Status.FAILED, "database: " + e);
    }
    if (row == null) {
      return new ReplayResult(
          ReplayResult.Status.NOT_REPLAYABLE,
          "no parked message of " + LogSafe.quote(group) + "/" + LogSafe.quote(eventId));
    }
    IncomingEvent e;
    try {
      e =
          EnvelopeCodec.decode(
              HeadersCodec.decode(row.getHeaders()),
              row.getPayload(),
              row.getTopic(),
              row.getBrokerMessageId(),
              0);
    } catch (MalformedEventException m) {
      return failedReplay(row, m, "parked message is not a valid event: " + m.getMessage());
    }
    if (row.getReason() == ParkReason.TOO_OLD) {
      ReplayResult archived = discardIfArchived(row, replayRequestId);
      if (archived != null) {
        return archived;
      }
      // Not in the archive: never applied, so it is applied now without the age check.
    }
    ConsumePipeline.Route route = routes.getOrDefault(group, Map.of()).get(e.eventType());
    if (route == null) {
      return new ReplayResult(
          ReplayResult.Status.FAILED,
          "no handler for " + LogSafe.quote(e.eventType()) + " in group " + group);
    }
    try {
      ConsumeOutcome outcome = pipeline.replay(group, e, route, replayRequestId);
      listener.onOutcome(group, e.eventType(), eventId, outcome);
      return switch (outcome) {
        case APPLIED -> new ReplayResult(ReplayResult.Status.REPLAYED, "applied");
        case STALE -> new ReplayResult(ReplayResult.Status.SKIPPED_STALE, "stale version");
        default ->
            new ReplayResult(
                ReplayResult.Status.NOT_REPLAYABLE, "no longer parked (" + outcome + ")");
      };
    } catch (ConsumePipeline.ReplayFailedException f) {
      return failedReplay(row, f.getCause(), f.getCause().toString());
    } catch (PayloadDecodingException p) {
      return failedReplay(row, p, p.getMessage());
    }
  }

  /**
   * A TOO_OLD event whose consume-log row was archived was applied before: its dead letter is
   * discarded, not replayed. Returns null when the archive has no row for it.
   */
  private ReplayResult discardIfArchived(DeadLetterRow row, String replayRequestId) {
    try {
      ConsumeLogRow archived = consumeLog.findArchived(row.getConsumerGroup(), row.getEventId());
      if (archived == null) {
        return null;
      }
      String note =
          "duplicate: consume_log_archive has it as "
              + archived.getStatus()
              + (archived.getRequestHash().equals(row.getRequestHash()) ? "" : " (other hash)");
      deadLetters.discard(
          row.getConsumerGroup(), row.getEventId(), row.getRequestHash(), replayRequestId, note);
      return new ReplayResult(ReplayResult.Status.DUPLICATE, note);
    } catch (Exception e) {
      return new ReplayResult(ReplayResult.Status.FAILED, "archive check failed: " + e);
    }
  }

  private ReplayResult failedReplay(DeadLetterRow row, Throwable error, String message) {
    try {
      deadLetters.recordReplayFailure(
          row.getConsumerGroup(),
          row.getEventId(),
          row.getRequestHash(),
          error.getClass().getName(),
          Parking.truncate(message, 1000));
      // Back to PARKED under its original reason, with the replay's error.
      listener.onParked(
          new ParkedEvent(
              row.getConsumerGroup(),
              row.getEventId(),
              row.getEventType(),
              row.getReason().name(),
              Parking.truncate(message, 1000),
              0));
    } catch (Exception e) {
      log.warn(
          "replay failure not recorded eventId={}: {}",
          LogSafe.escape(row.getEventId()),
          e.toString());
    }
    return new ReplayResult(ReplayResult.Status.FAILED, message);
  }
}
