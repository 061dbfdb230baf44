package io.txmsg.transport;

import io.txmsg.api.TransportException;
import java.time.Duration;
import java.util.Optional;

/**
 * The port between the txmsg runtimes and a broker. The producer and consumer runtimes make every
 * broker call through it; an implementation adapts one client library (txmsg-rocketmq: gRPC through
 * a RocketMQ 5 proxy) and is chosen from the {@link BrokerConnection} by {@link Transports#open}.
 *
 * <p>Contract common to all methods: no client-library type crosses this interface; a method that
 * opens something either returns a started, usable handle or throws {@link TransportException}
 * having released whatever it had started.
 */
public interface Transport extends AutoCloseable {
  /** A short name for logs and metrics, e.g. {@code grpc}. */
  String name();

  /** Opens a store's producer for its topics, with its check-back handler registered. */
  ProducerChannel openProducer(ProducerSpec spec) throws TransportException;

  /**
   * Subscribes a consumer group. The handler's {@link Verdict#RETRY} (or exception) makes the
   * broker redeliver after the group's backoff; each {@link InboundMessage#deliveryAttempt()}
   * counts from 1.
   */
  Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) throws TransportException;

  /**
   * Starts a store's delivery-confirmation source: the messages published to the store's topics, in
   * batches; a batch is acknowledged only when the handler returns true.
   */
  Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler)
      throws TransportException;

  /**
   * Starts reading the consumer group's dead-letter queue (what the broker moved there after the
   * group's last delivery attempt). The queue may not exist yet: the implementation keeps trying
   * every {@code retryInterval} until it can subscribe, and must not fail silently on a queue it
   * can see but not read. (Over gRPC a missing queue and an unreadable one look alike to the
   * client: the gRPC transport retries quietly; see docs/architecture.md, "Transport port".)
   */
  Subscription drainDeadLetters(String group, DeliveryHandler handler, Duration retryInterval);

  /**
   * Starts reading the half messages of this store's producer group that the broker gave up
   * checking (after {@code transactionCheckMax} check-backs answered UNKNOWN or not at all, the
   * broker stops asking and parks them in its give-up topic; the message is then never delivered by
   * the broker). The handler republishes such an event from the journal at once instead of after
   * {@code republishAfter}; see docs/architecture.md, "Give-up drain".
   *
   * @return the running drain, or empty when the transport cannot read the give-up topic (the gRPC
   *     proxy refuses system topics: the reconciler alone covers it there)
   */
  default Optional<Subscription> drainGivenUp(
      String storeId, DeliveryHandler handler, Duration retryInterval) {
    return Optional.empty();
  }

  /**
   * Releases what the transport holds itself (producers and subscriptions are closed by their
   * owners).
   */
  @Override
  void close();
}
