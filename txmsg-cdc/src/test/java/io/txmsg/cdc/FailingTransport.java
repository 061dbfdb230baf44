package io.txmsg.cdc;

import io.txmsg.api.Envelope;
import io.txmsg.api.PublishException;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real transport whose sends of chosen events fail a given number of times with a retryable error
 * before reaching the broker: a broker outage as the relay sees it, for one row.
 */
final class FailingTransport implements Transport {
  private final Transport real;
  private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
  final AtomicInteger refused = new AtomicInteger();

  FailingTransport(Transport real) {
    this.real = real;
  }

  /**
   * The next {@code times} sends of the event of {@code aggregateId} at {@code version} fail
   * (retryable, BROKER_BUSY).
   */
  void failSends(String aggregateId, long version, int times) {
    failures.put(aggregateId + ":" + version, new AtomicInteger(times));
  }

  @Override
  public String name() {
    return real.name();
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) {
    ProducerChannel channel = real.openProducer(spec);
    return new ProducerChannel() {
      @Override
      public HalfMessage sendHalf(OutboundMessage message) {
        return channel.sendHalf(message);
      }

      @Override
      public String send(OutboundMessage message) {
        AtomicInteger left =
            failures.get(
                message.properties().get(Envelope.AGGREGATE_ID)
                    + ":"
                    + message.properties().get(Envelope.AGGREGATE_VERSION));
        if (left != null && left.getAndDecrement() > 0) {
          refused.incrementAndGet();
          throw new PublishException("injected: broker busy", "BROKER_BUSY", true, null);
        }
        return channel.send(message);
      }

      @Override
      public void close() throws Exception {
        channel.close();
      }
    };
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) {
    return real.subscribe(spec, handler);
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler) {
    return real.confirmDeliveries(spec, handler);
  }

  @Override
  public Subscription drainDeadLetters(String group, DeliveryHandler handler, Duration retry) {
    return real.drainDeadLetters(group, handler, retry);
  }

  @Override
  public void close() {
    // the fixture closes the real transport
  }
}
