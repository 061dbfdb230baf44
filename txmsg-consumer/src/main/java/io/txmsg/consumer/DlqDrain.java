package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.transport.Backoff;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.IncomingEvent;
import io.txmsg.transport.MalformedEventException;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks every message the broker moved to a group's dead-letter queue with reason BROKER_DLQ
 * (unless the consume log shows it applied): whatever the broker gave up on ends in the dead-letter
 * table where the CLI sees it and a replay can apply it. The transport reads the queue (and keeps
 * trying until the broker has created it).
 *
 * <p>A park that fails (the database is unreachable) is retried here, in the drain's own thread,
 * with backoff, for up to {@link #PATIENCE}. Handing the message back to the broker at once would
 * be the last thing to do: a dead-lettered message carries its exhausted retry count, so the
 * broker's answer to a failed drain delivery is the drain group's own dead-letter queue, which
 * nothing reads (docs/facts.md, "Dead-letter drain").
 */
final class DlqDrain implements DeliveryHandler, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DlqDrain.class);

  /** How long one message's park is retried in-process before the transport's retry takes over. */
  static final Duration PATIENCE = Duration.ofMinutes(10);

  /** Between park attempts: 0.5 s doubling to 15 s. */
  private static final Backoff PARK_RETRY =
      Backoff.exponential(Duration.ofMillis(500), Duration.ofSeconds(15)).withoutJitter();

  private final String group;
  private final Parking parking;
  private final ConsumeListener listener;
  private final Duration patience;
  private volatile Subscription subscription;
  private volatile boolean closed;

  DlqDrain(String group, Parking parking, ConsumeListener listener) {
    this(group, parking, listener, PATIENCE);
  }

  DlqDrain(String group, Parking parking, ConsumeListener listener, Duration patience) {
    this.group = group;
    this.parking = parking;
    this.listener = listener;
    this.patience = patience;
  }

  void start(Transport transport, Duration retryInterval) {
    subscription = transport.drainDeadLetters(group, this, retryInterval);
  }

  @Override
  public Verdict onMessage(InboundMessage message) {
    IncomingEvent e;
    ParkReason reason = ParkReason.BROKER_DLQ;
    // Named from the group, not from message.topic(): over remoting a dead-lettered message still
    // carries its retry topic (%RETRY%<group>) there.
    String why = "the broker moved it to %DLQ%" + group + " after its last delivery attempt";
    try {
      e = EnvelopeCodec.decode(message);
    } catch (MalformedEventException m) {
      e = EnvelopeCodec.placeholder(message);
      reason = Parking.reasonOf(m);
      why = m.getMessage();
    }
    ConsumeOutcome outcome = parkPatiently(e, reason, why);
    listener.onOutcome(group, e.eventType(), e.eventId(), outcome);
    return outcome == ConsumeOutcome.RETRY ? Verdict.RETRY : Verdict.ACK;
  }

  /**
   * Parks, retrying a failed park (RETRY) with backoff until it holds, the drain closes, or {@link
   * #patience} ends.
   */
  private ConsumeOutcome parkPatiently(IncomingEvent e, ParkReason reason, String why) {
    long deadline = System.nanoTime() + patience.toNanos();
    int failures = 0;
    while (true) {
      ConsumeOutcome outcome = parking.park(group, e, reason, null, why);
      if (outcome != ConsumeOutcome.RETRY || closed) {
        return outcome;
      }
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        log.error(
            "dead letter group={} eventId={} could not be parked for {}: handed back to the broker,"
                + " which may move it to %DLQ%txmsg-dlq-{} (docs/runbook.md, \"A dead letter the"
                + " drain could not park\")",
            LogSafe.escape(group), LogSafe.escape(e.eventId()), patience, LogSafe.escape(group));
        return outcome;
      }
      try {
        Thread.sleep(Math.min(PARK_RETRY.millis(++failures), left));
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return outcome;
      }
    }
  }

  @Override
  public void close() throws Exception {
    closed = true;
    Subscription s = subscription;
    if (s != null) {
      s.close();
    }
  }
}
