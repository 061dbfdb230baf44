package io.txmsg.producer;

import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.ProducerChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one send attempt after commit of a row sent OUTBOX-style: a synchronous plain or FIFO send
 * ({@link ProducerChannel#send}) from the journal row, so it is byte-identical to any later
 * republish. Never throws: a row that is not sent here stays PENDING and the reconciler sends it
 * after {@code publishAfter}. A FIFO row goes only when no lower version of its aggregate is unsent
 * and no other row of its group is in flight (the same rule as the reconciler's claim); otherwise
 * it is left to the reconciler, which keeps the order.
 */
final class ImmediatePublisher {
  private static final Logger log = LoggerFactory.getLogger(ImmediatePublisher.class);

  private final ProducerChannel producer;
  private final Journal journal;
  private final SentRecorder recorder;
  private final ProducerInterceptor interceptor;
  private final ProducerMetrics metrics;
  private final ProducerObservations observations;

  ImmediatePublisher(
      ProducerChannel producer,
      Journal journal,
      SentRecorder recorder,
      ProducerInterceptor interceptor,
      ProducerMetrics metrics,
      ProducerObservations observations) {
    this.observations = observations;
    this.producer = producer;
    this.journal = journal;
    this.recorder = recorder;
    this.interceptor = interceptor;
    this.metrics = metrics;
  }

  /**
   * Queues a broker acknowledgement obtained elsewhere for the batched recorder, like the SEND_OK
   * of a send made here: PROXY_ACK's accepted commit of a half message, or BROKER_ACK's SUCCESS
   * answer to a synchronous commit.
   */
  void acknowledged(String eventId, String messageId) {
    recorder.sent(eventId, messageId);
  }

  /** Returns whether the broker answered SEND_OK. */
  boolean publish(TxMessage message, JournalRow row) {
    String eventId = row.getEventId();
    if (!interceptor.beforeSend(message, row.getAttemptId())) {
      log.warn("immediate send skipped by interceptor eventId={}", eventId);
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
      return false;
    }
    if (row.getMessageGroup() != null && !inOrder(eventId)) {
      log.debug(
          "eventId={} waits for a lower version of its aggregate: left to the reconciler", eventId);
      return false;
    }
    String messageId;
    try (ProducerObservations.Observed observed =
        observations.publish(
            row.getDestination(), row.getEventType(), eventId, "send", row.headerMap())) {
      try {
        messageId = producer.send(EnvelopeCodec.encode(row));
        observed.outcome(ProducerMetrics.SENT);
      } catch (RuntimeException e) { // PublishException, or anything the transport threw
        observed.outcome(ProducerMetrics.UNKNOWN);
        observed.error(e);
        metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.UNKNOWN);
        log.warn(
            "immediate send failed eventId={}: {} (the reconciler sends it after publishAfter)",
            eventId,
            e.toString());
        return false;
      }
    }
    metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.SENT);
    row.setBrokerMessageId(messageId);
    recorder.sent(eventId, messageId);
    return true;
  }

  private boolean inOrder(String eventId) {
    try {
      return journal.inOrder(eventId);
    } catch (Exception e) {
      log.warn("order check failed eventId={}: {} (left to the reconciler)", eventId, e.toString());
      return false;
    }
  }
}
