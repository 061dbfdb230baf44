package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.store.ParkReason;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.IncomingEvent;
import io.txmsg.transport.MalformedEventException;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Verdict;
import java.time.Duration;

/**
 * Parks every message the broker moved to a group's dead-letter queue with reason BROKER_DLQ
 * (unless the consume log shows it applied): whatever the broker gave up on ends in the dead-letter
 * table where the CLI sees it and a replay can apply it. The transport reads the queue (and keeps
 * trying until the broker has created it).
 */
final class DlqDrain implements DeliveryHandler, AutoCloseable {
  private final String group;
  private final Parking parking;
  private final ConsumeListener listener;
  private volatile Subscription subscription;

  DlqDrain(String group, Parking parking, ConsumeListener listener) {
    this.group = group;
    this.parking = parking;
    this.listener = listener;
  }

  void start(Transport transport, Duration retryInterval) {
    subscription = transport.drainDeadLetters(group, this, retryInterval);
  }

  @Override
  public Verdict onMessage(InboundMessage message) {
    IncomingEvent e;
    String reason = ParkReason.BROKER_DLQ.name();
    // Named from the group, not from message.topic(): over remoting a dead-lettered message still
    // carries its retry topic (%RETRY%<group>) there.
    String why = "the broker moved it to %DLQ%" + group + " after its last delivery attempt";
    try {
      e = EnvelopeCodec.decode(message);
    } catch (MalformedEventException m) {
      e = EnvelopeCodec.placeholder(message);
      reason = m.reason();
      why = m.getMessage();
    }
    ConsumeOutcome outcome = parking.park(group, e, reason, null, why);
    listener.onOutcome(group, e.eventType(), e.eventId(), outcome);
    return outcome == ConsumeOutcome.RETRY ? Verdict.RETRY : Verdict.ACK;
  }

  @Override
  public void close() throws Exception {
    Subscription s = subscription;
    if (s != null) {
      s.close();
    }
  }
}
