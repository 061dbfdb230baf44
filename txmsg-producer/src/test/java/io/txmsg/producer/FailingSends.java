package io.txmsg.producer;

import io.txmsg.api.PublishException;
import io.txmsg.testkit.transport.ForwardingTransport;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Transport;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport whose producer channels fail the next {@link #failNextSends} plain sends with a
 * retryable {@link PublishException} (a broker that is briefly unavailable); everything else goes
 * to the real transport.
 */
final class FailingSends extends ForwardingTransport {
  final AtomicInteger failNextSends = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();

  FailingSends(Transport delegate) {
    super(delegate);
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
  public void close() {
    // The harness closes the real transport.
  }
}
