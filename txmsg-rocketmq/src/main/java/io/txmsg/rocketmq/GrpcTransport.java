package io.txmsg.rocketmq;

import io.txmsg.api.LogSafe;
import io.txmsg.api.Resolution;
import io.txmsg.api.TransportException;
import io.txmsg.transport.BatchHandler;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.ConfirmationSpec;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientConfigurationBuilder;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.apache.rocketmq.client.java.exception.ForbiddenException;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.apache.rocketmq.client.java.exception.UnauthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport port over gRPC (rocketmq-client-java) through a RocketMQ 5 proxy: the default
 * transport, selected by {@link BrokerConnection#endpoints(String)}. One client object per
 * producer, group subscription, confirm topic and dead-letter drain, all with this transport's
 * client configuration.
 */
public final class GrpcTransport implements Transport {
  private static final Logger log = LoggerFactory.getLogger(GrpcTransport.class);

  private final BrokerConnection connection;
  private final ClientServiceProvider provider = ClientServiceProvider.loadService();
  private final ClientConfiguration config;
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "txmsg-grpc-retry");
            t.setDaemon(true);
            return t;
          });

  public GrpcTransport(BrokerConnection connection) {
    connection.validate();
    this.connection = connection;
    ClientConfigurationBuilder cb =
        ClientConfiguration.newBuilder()
            .setEndpoints(connection.endpoints())
            .setRequestTimeout(connection.requestTimeout())
            .enableSsl(connection.tls());
    if (connection.accessKey() != null) {
      cb.setCredentialProvider(
          new StaticSessionCredentialsProvider(connection.accessKey(), connection.secretKey()));
    }
    this.config = cb.build();
  }

  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public ProducerChannel openProducer(ProducerSpec spec) {
    try {
      Producer producer =
          provider
              .newProducerBuilder()
              .setClientConfiguration(config)
              .setTopics(spec.topics().toArray(new String[0]))
              .setTransactionChecker(
                  view -> {
                    InboundMessage m = GrpcMessages.toInbound(view);
                    try {
                      Resolution r = spec.checkbackHandler().check(m);
                      return r == null
                          ? TransactionResolution.UNKNOWN
                          : TransactionResolution.valueOf(r.name());
                    } catch (RuntimeException | Error e) {
                      log.warn(
                          "check-back failed messageId={}: {} → UNKNOWN",
                          m.messageId(),
                          e.toString());
                      return TransactionResolution.UNKNOWN;
                    }
                  })
              .build();
      return new GrpcProducerChannel(
          provider, producer, spec.topics(), connection.requestTimeout());
    } catch (Exception e) {
      throw new TransportException(startFailure(spec, e), e);
    }
  }

  /**
   * The client's start failure is a Guava "Expected the service ProducerImpl-N [FAILED] to be
   * RUNNING" whose cause chain holds the real reason: a missing topic (its route query answers
   * NotFoundException) is named as such, with the topic when the proxy's message names it.
   */
  private String startFailure(ProducerSpec spec, Exception e) {
    Throwable notFound = PublishErrors.find(e, NotFoundException.class);
    if (notFound != null) {
      String missing =
          spec.topics().stream()
              .filter(t -> String.valueOf(notFound.getMessage()).contains(t))
              .findFirst()
              .map(t -> "topic " + LogSafe.quote(t) + " not found")
              .orElse("topic not found: one of " + spec.topics() + " does not exist");
      return "producer could not start at "
          + connection.endpoints()
          + ": "
          + missing
          + " (create it first: a TRANSACTION topic for half messages, NORMAL or FIFO for plain sends); broker said: "
          + PublishErrors.said(notFound);
    }
    String refused = refusal(e);
    Throwable deadline = deadline(e);
    return "producer for topics "
        + spec.topics()
        + " could not start at "
        + connection.endpoints()
        + ": "
        + (refused != null
            ? refused
            : deadline != null
                ? timeout(deadline)
                : PublishErrors.classify("start", e).getMessage());
  }

  /**
   * The cause saying a request to the proxy ran out of time (gRPC DEADLINE_EXCEEDED), or null. The
   * client reports a start that timed out as a Guava "service FAILED" like any other.
   */
  private static Throwable deadline(Throwable e) {
    int depth = 0;
    for (Throwable c = e; c != null && depth < 20; c = c.getCause(), depth++) {
      if (String.valueOf(c.getMessage()).contains("DEADLINE_EXCEEDED")) {
        return c;
      }
    }
    return null;
  }

  private String timeout(Throwable deadline) {
    return "the proxy did not answer a start request in time (requestTimeout "
        + connection.requestTimeout().toMillis()
        + " ms; a loaded or distant proxy needs a longer BrokerConnection.withRequestTimeout): "
        + PublishErrors.said(deadline);
  }

  /**
   * Why the broker refused a client at start when it was for its credentials (the client's own
   * message is a Guava "service FAILED"), else null. Names the access key, never the secret.
   */
  private String refusal(Throwable e) {
    Throwable unauthorized = PublishErrors.find(e, UnauthorizedException.class);
    // The proxy answers UNAUTHORIZED both for credentials it rejects and for a known access key
    // without the right it needs (ACL 2.0 says "... has no permission to access <resource>"): the
    // first is a wrong secret or user, the second a missing grant, and the message says which.
    if (unauthorized != null
        && connection.accessKey() != null
        && String.valueOf(unauthorized.getMessage()).contains("no permission")) {
      return "authorization failed: access key "
          + LogSafe.quote(connection.accessKey())
          + " lacks a right it needs ("
          + PublishErrors.said(unauthorized)
          + ")";
    }
    if (unauthorized != null) {
      return "authentication failed: the broker refused "
          + (connection.accessKey() == null
              ? "a client without credentials (set BrokerConnection.withCredentials)"
              : "the credentials of access key " + LogSafe.quote(connection.accessKey()))
          + " ("
          + PublishErrors.said(unauthorized)
          + ")";
    }
    Throwable forbidden = PublishErrors.find(e, ForbiddenException.class);
    if (forbidden != null) {
      return "authorization failed: access key "
          + LogSafe.quote(connection.accessKey())
          + " lacks a permission ("
          + PublishErrors.said(forbidden)
          + ")";
    }
    // Without its reason: a known access key without the right on the client's group (measured:
    // a dead-letter drain allowed the topic but not its group; a producer without PUB) gets its
    // settings stream ended by the proxy at start, and the client then reports only a cancelled
    // future ("service FAILED" caused by a CancellationException). Only with credentials: without
    // them the proxy checks no rights.
    if (connection.accessKey() != null
        && PublishErrors.find(e, CancellationException.class) != null
        && deadline(e) == null) {
      return "authorization probably failed: the proxy ended the client's settings exchange at"
          + " start, which is how it refuses access key "
          + LogSafe.quote(connection.accessKey())
          + " a right it needs on this client's topic or group (the client drops the proxy's"
          + " reason)";
    }
    return null;
  }

  private String startReason(Exception e) {
    String refused = refusal(e);
    return refused != null ? refused : PublishErrors.said(e);
  }

  @Override
  public Subscription subscribe(SubscriptionSpec spec, DeliveryHandler handler) {
    if (spec.lease() != null) {
      GrpcLeasedSubscription leased = new GrpcLeasedSubscription(spec, handler);
      try {
        leased.start(provider, config);
        return leased;
      } catch (Exception e) {
        throw new TransportException(subscribeFailure(spec, e), e);
      }
    }
    Map<String, FilterExpression> subscriptions = new HashMap<>();
    spec.tagsByTopic()
        .forEach(
            (t, tag) -> subscriptions.put(t, new FilterExpression(tag, FilterExpressionType.TAG)));
    GrpcPushSubscription subscription = new GrpcPushSubscription(spec.group(), handler);
    try {
      PushConsumer consumer =
          provider
              .newPushConsumerBuilder()
              .setClientConfiguration(config)
              .setConsumerGroup(spec.group())
              .setSubscriptionExpressions(subscriptions)
              .setConsumptionThreadCount(spec.threads())
              .setMessageListener(subscription::onMessage)
              .build();
      subscription.attach(consumer);
      return subscription;
    } catch (Exception e) {
      throw new TransportException(subscribeFailure(spec, e), e);
    }
  }

  private String subscribeFailure(SubscriptionSpec spec, Exception e) {
    return "consumer group "
        + spec.group()
        + " could not subscribe "
        + spec.tagsByTopic().keySet()
        + " at "
        + connection.endpoints()
        + ": "
        + startReason(e);
  }

  @Override
  public Subscription confirmDeliveries(ConfirmationSpec spec, BatchHandler handler) {
    GrpcConfirmationSource source = new GrpcConfirmationSource(spec, handler);
    try {
      source.start(provider, config);
      return source;
    } catch (Exception e) {
      throw new TransportException(
          "confirm group "
              + spec.group()
              + " could not subscribe "
              + spec.topics()
              + " at "
              + connection.endpoints()
              + ": "
              + startReason(e),
          e);
    }
  }

  @Override
  public Subscription drainDeadLetters(String group, DeliveryHandler handler, Duration retry) {
    GrpcDeadLetterDrain drain = new GrpcDeadLetterDrain(group, handler, this::refusal);
    drain.start(provider, config, retries, retry);
    return drain;
  }

  @Override
  public void close() {
    retries.shutdownNow();
  }

  @Override
  public String toString() {
    return "GrpcTransport{" + connection + "}";
  }
}
