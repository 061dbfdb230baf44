package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ParkedEvent;
import io.txmsg.store.HeadersCodec;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.ConsumeLogRow;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterRow;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.transport.IncomingEvent;
import io.txmsg.transport.MalformedEventException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks events and resolves claims someone else holds, each in a short transaction of its own.
 *
 * <p>Parking inserts the consume-log row PARKED and the dead letter together: if the consume log
 * already has the event (applied, skipped, or parked before), nothing new is parked and the
 * existing row decides. A different payload hash under the same eventId is a conflict: its dead
 * letter has its own key (group, eventId, hash) and never touches the consume log.
 */
final class Parking {
  private static final Logger log = LoggerFactory.getLogger(Parking.class);
  private static final int MAX_ERROR = 1000;

  private final ConsumeLog consumeLog;
  private final DeadLetters deadLetters;
  private final ConsumeListener listener;

  Parking(ConsumeLog consumeLog, DeadLetters deadLetters, ConsumeListener listener) {
    this.consumeLog = consumeLog;
    this.deadLetters = deadLetters;
    this.listener = listener;
  }

  /**
   * @return PARKED; DUPLICATE or CONFLICT when the consume log already had the event; RETRY when
   *     the database could not record it (the broker redelivers, and the %DLQ% drain is the last
   *     resort)
   */
  ConsumeOutcome park(
      String group, IncomingEvent e, ParkReason reason, Throwable error, String why) {
    try {
      if (!deadLetters.park(deadLetter(group, e, DeadLetterKind.MESSAGE, reason, error, why))) {
        return resolveExisting(group, e); // the consume log already has the event
      }
      log.warn(
          "parked group={} eventId={} eventType={} reason={} attempt={} error={}",
          LogSafe.escape(group),
          LogSafe.escape(e.eventId()),
          LogSafe.escape(e.eventType()),
          reason,
          e.deliveryAttempt(),
          error != null ? error.toString() : why);
      // Every park goes through here (delivery, NO_HANDLER, malformed, %DLQ% drain): the one
      // place that knows the reason, so listeners learn it without a query.
      notifyParked(
          new ParkedEvent(
              group,
              e.eventId(),
              e.eventType(),
              reason.name(),
              truncate(
                  error == null || error.getMessage() == null ? why : error.getMessage(),
                  MAX_ERROR),
              e.deliveryAttempt()));
      return ConsumeOutcome.PARKED;
    } catch (Exception ex) {
      log.warn(
          "parking failed group={} eventId={} reason={}: {} (redelivered later)",
          LogSafe.escape(group),
          LogSafe.escape(e.eventId()),
          reason,
          ex.toString());
      return ConsumeOutcome.RETRY;
    }
  }

  /** A listener's failure must not turn a committed park into a RETRY. */
  private void notifyParked(ParkedEvent parked) {
    try {
      listener.onParked(parked);
    } catch (RuntimeException ex) {
      log.warn("consume listener failed on parked event: {}", ex.toString());
    }
  }

  /** The consume log already holds the event: a duplicate, or a conflict when the hash differs. */
  ConsumeOutcome resolveExisting(String group, IncomingEvent e) {
    ConsumeLogRow row;
    try {
      row = consumeLog.find(group, e.eventId());
    } catch (Exception ex) {
      log.warn(
          "dedup read failed group={} eventId={}: {}",
          LogSafe.escape(group),
          LogSafe.escape(e.eventId()),
          ex.toString());
      return ConsumeOutcome.RETRY;
    }
    if (row == null || row.getStatus() == ConsumeStatus.PROCESSING) {
      return ConsumeOutcome.RETRY; // the holder rolled back, or an archive raced us: try again
    }
    if (row.getRequestHash().equals(e.payloadHash())) {
      log.debug(
          "duplicate group={} eventId={} status={} resultRef={}",
          LogSafe.escape(group),
          LogSafe.escape(e.eventId()),
          row.getStatus(),
          LogSafe.escape(row.getResultRef()));
      return ConsumeOutcome.DUPLICATE;
    }
    return conflict(group, e, row);
  }

  private ConsumeOutcome conflict(String group, IncomingEvent e, ConsumeLogRow existing) {
    String why =
        "eventId already consumed with payload hash "
            + existing.getRequestHash()
            + " (status "
            + existing.getStatus()
            + "); this delivery has "
            + e.payloadHash();
    try {
      if (deadLetters.recordConflict(
          deadLetter(group, e, DeadLetterKind.CONFLICT, ParkReason.CONFLICT, null, why))) {
        log.error(
            "conflict group={} eventId={} {}",
            LogSafe.escape(group),
            LogSafe.escape(e.eventId()),
            why);
      }
      // else the same conflicting payload was recorded before: nothing new
    } catch (Exception ex) {
      log.warn(
          "conflict not recorded group={} eventId={}: {}",
          LogSafe.escape(group),
          LogSafe.escape(e.eventId()),
          ex.toString());
      return ConsumeOutcome.RETRY;
    }
    return ConsumeOutcome.CONFLICT;
  }

  static DeadLetterRow deadLetter(
      String group,
      IncomingEvent e,
      DeadLetterKind kind,
      ParkReason reason,
      Throwable error,
      String why) {
    DeadLetterRow r = new DeadLetterRow();
    r.setConsumerGroup(group);
    r.setEventId(e.eventId());
    r.setRequestHash(e.payloadHash());
    r.setKind(kind);
    r.setReason(reason);
    r.setBusinessKey(e.businessKey());
    r.setEventType(e.eventType());
    r.setAggregateType(e.aggregateType());
    r.setAggregateId(e.aggregateId());
    r.setAggregateVersion(e.aggregateType() == null ? null : e.aggregateVersion());
    r.setTopic(e.topic());
    r.setBrokerMessageId(e.brokerMessageId());
    r.setAttempt(e.deliveryAttempt());
    r.setErrorClass(error == null ? null : truncate(error.getClass().getName(), 255));
    String message = error == null ? why : error.getMessage();
    r.setErrorMessage(truncate(message == null ? String.valueOf(error) : message, MAX_ERROR));
    r.setPayload(e.payload());
    r.setHeaders(HeadersCodec.encode(e.properties()));
    r.setOriginTime(e.originTime());
    return r;
  }

  /**
   * The park reason of a message that is not an event: the envelope decoder names it as text (the
   * transport does not depend on the store), one of {@link ParkReason}'s names.
   */
  static ParkReason reasonOf(MalformedEventException m) {
    return ParkReason.valueOf(m.reason());
  }

  static String truncate(String s, int max) {
    return s == null || s.length() <= max ? s : s.substring(0, max);
  }

  /** The consume-log key is taken: by a concurrent or earlier delivery, or a parked row. */
  static final class ClaimTakenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClaimTakenException() {
      super(null, null, false, false);
    }
  }
}
