package io.txmsg.testkit.transport;

import io.txmsg.api.TransportException;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.Optional;

/**
 * A transport that passes every call to another one; a test transport overrides only the calls it
 * changes (a fault on send, a start offset before subscribing).
 */
public abstract class ForwardingTransport implements Transport {
  protected final Transport delegate;

  protected ForwardingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) throws TransportException {
    return delegate.openProducer(spec);
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler)
      throws TransportException {
    return delegate.subscribe(spec, handler);
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler)
      throws TransportException {
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
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
