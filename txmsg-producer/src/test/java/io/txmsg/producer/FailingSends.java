package io.txmsg.producer;

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
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport whose producer channels fail the next {@link #failNextSends} plain sends with a
 * retryable {@link PublishException} (a broker that is briefly unavailable); everything else goes
 * to the real transport.
 */
final class FailingSends implements Transport {
  private final Transport delegate;
  final AtomicInteger failNextSends = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();

  FailingSends(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) {
    ProducerChannel real = delegate.openProducer(spec);
    return new ProducerChannel() {
      @Override
      public HalfMessage sendHalf(OutboundMessage message) throws PublishException {
        return real.sendHalf(message);
      }

      @Override
      public String send(OutboundMessage message) throws PublishException {
        if (failNextSends.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          failed.incrementAndGet();
          throw new PublishException("injected: broker busy", "UNAVAILABLE", true, null);
        }
        return real.send(message);
      }

      @Override
      public Optional<Set<TopicKind>> acceptedKinds(String topic) {
        return real.acceptedKinds(topic);
      }

      @Override
      public void close() throws Exception {
        real.close();
      }
    };
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) {
    return delegate.subscribe(spec, handler);
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler) {
    return delegate.confirmDeliveries(spec, handler);
  }

  @Override
  public Subscription drainDeadLetters(
      String group, DeliveryHandler handler, Duration retryInterval) {
    return delegate.drainDeadLetters(group, handler, retryInterval);
  }

  @Override
  public Optional<Subscription> drainGivenUp(
      String storeId, DeliveryHandler handler, Duration retryInterval) {
    return delegate.drainGivenUp(storeId, handler, retryInterval);
  }

  @Override
  public void close() {
    // The harness closes the real transport.
  }
}
