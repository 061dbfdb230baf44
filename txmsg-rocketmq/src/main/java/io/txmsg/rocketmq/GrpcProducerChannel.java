package io.txmsg.rocketmq;

import io.txmsg.api.PublishException;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.OutboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.TopicKind;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store's producer over gRPC: one rocketmq-client-java {@link Producer} declaring the store's
 * topics with the check-back handler as its transaction checker. Through the proxy the topic is the
 * producer group, so every client that sent transactionally to a topic may be asked about any half
 * message of it: the handler answers UNKNOWN for other stores' messages.
 */
final class GrpcProducerChannel implements ProducerChannel {
  private static final Logger log = LoggerFactory.getLogger(GrpcProducerChannel.class);

  private final ClientServiceProvider provider;
  private final Producer producer;
  private final Set<String> topics;
  private final Duration timeout;

  GrpcProducerChannel(
      ClientServiceProvider provider, Producer producer, Set<String> topics, Duration timeout) {
    this.provider = provider;
    this.producer = producer;
    this.topics = Set.copyOf(topics);
    this.timeout = timeout;
  }

  @Override
  public HalfMessage sendHalf(OutboundMessage message) throws PublishException {
    try {
      // A Transaction holds at most one message: one per half message.
      Transaction tx = producer.beginTransaction();
      SendReceipt receipt = producer.send(GrpcMessages.toMessage(provider, message), tx);
      return new GrpcHalfMessage(tx, receipt.getMessageId().toString());
    } catch (Exception e) {
      throw PublishErrors.classify("half message to " + message.topic() + " not sent", e);
    }
  }

  @Override
  public String send(OutboundMessage message) throws PublishException {
    try {
      return producer.send(GrpcMessages.toMessage(provider, message)).getMessageId().toString();
    } catch (Exception e) {
      throw PublishErrors.classify("message to " + message.topic() + " not sent", e);
    }
  }

  /**
   * Read from the route the client fetched at start (proto {@code
   * MessageQueue.accept_message_types}, the list the client itself checks before a send: "message
   * type not match"). rocketmq-client-java 5.1.0 has no public API for it: the route sits behind
   * the protected {@code ClientImpl.getRouteData(topic)}, so this is a reflective read, contained
   * here. It answers from the client's route cache, and any failure (another client version, a
   * security manager, no route) means "unknown", never "wrong".
   */
  @Override
  public Optional<Set<TopicKind>> acceptedKinds(String topic) {
    if (!topics.contains(topic)) {
      return Optional.empty();
    }
    try {
      return RouteKinds.of(producer, topic, timeout);
    } catch (Exception | LinkageError e) {
      log.debug("topic kind of {} unknown: {}", topic, e.toString());
      return Optional.empty();
    }
  }

  @Override
  public void close() throws Exception {
    producer.close();
  }

  /** The reflective read of the client's route; every step may fail and then means unknown. */
  private static final class RouteKinds {
    private static final String CLIENT_IMPL = "org.apache.rocketmq.client.java.impl.ClientImpl";

    static Optional<Set<TopicKind>> of(Producer producer, String topic, Duration timeout)
        throws Exception {
      Class<?> client = Class.forName(CLIENT_IMPL, false, producer.getClass().getClassLoader());
      if (!client.isInstance(producer)) {
        return Optional.empty();
      }
      Method getRouteData = client.getDeclaredMethod("getRouteData", String.class);
      getRouteData.setAccessible(true);
      Object route =
          ((Future<?>) getRouteData.invoke(producer, topic))
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (route == null) {
        return Optional.empty();
      }
      List<?> queues = (List<?>) route.getClass().getMethod("getMessageQueues").invoke(route);
      if (queues == null || queues.isEmpty()) {
        return Optional.empty();
      }
      // Union over the queues: refuse only when no queue accepts a kind.
      Set<TopicKind> kinds = EnumSet.noneOf(TopicKind.class);
      for (Object q : queues) {
        List<?> types = (List<?>) q.getClass().getMethod("getAcceptMessageTypes").invoke(q);
        for (Object t : types == null ? List.of() : types) {
          if (t instanceof Enum<?> e) {
            for (TopicKind k : TopicKind.values()) {
              if (k.name().equals(e.name())) {
                kinds.add(k);
              }
            }
          }
        }
      }
      return Optional.of(Set.copyOf(kinds));
    }
  }

  private record GrpcHalfMessage(Transaction tx, String messageId) implements HalfMessage {
    @Override
    public void commit() throws PublishException {
      try {
        tx.commit();
      } catch (Exception e) {
        throw PublishErrors.classify("commit of half message " + messageId, e);
      }
    }

    @Override
    public void rollback() throws PublishException {
      try {
        tx.rollback();
      } catch (Exception e) {
        throw PublishErrors.classify("rollback of half message " + messageId, e);
      }
    }
  }
}
