package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.IncomingEvent;
import io.txmsg.transport.MalformedEventException;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.SubscriptionSpec;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transport subscription per consumer group, routing by event type to the group's handlers.
 * Answers ACK only after the outcome is durable; RETRY makes the broker redeliver after the group's
 * backoff.
 */
final class GroupConsumer implements DeliveryHandler, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);

  private final ConsumerGroupConfig config;
  private final Map<String, ConsumePipeline.Route> routes;
  private final ConsumePipeline pipeline;
  private final ConsumeListener listener;
  private final ConsumerInterceptor interceptor;
  private final ConsumerMetrics metrics;
  private volatile int brokerMaxAttempts = Integer.MAX_VALUE;
  private Subscription subscription;

  GroupConsumer(
      ConsumerGroupConfig config,
      Map<String, ConsumePipeline.Route> routes,
      ConsumePipeline pipeline,
      ConsumeListener listener,
      ConsumerInterceptor interceptor,
      ConsumerMetrics metrics) {
    this.metrics = metrics;
    this.config = config;
    this.routes = routes;
    this.pipeline = pipeline;
    this.listener = listener;
    this.interceptor = interceptor;
  }

  void start(
      Transport transport, int threads, SubscriptionSpec.Lease lease, Duration retryPolicyWait)
      throws InterruptedException {
    subscription =
        transport.subscribe(
            new SubscriptionSpec(config.name(), config.subscriptions(), threads, lease), this);
    checkRetryPolicy(retryPolicyWait, lease);
  }

  /**
   * Reads the group's max delivery attempts announced by the broker and lowers every handler's park
   * threshold to it, so an event is parked (by txmsg, with its reason) before the broker would move
   * it to its dead-letter queue.
   */
  private void checkRetryPolicy(Duration wait, SubscriptionSpec.Lease lease)
      throws InterruptedException {
    OptionalInt max = subscription.maxDeliveryAttempts(wait);
    if (max.isEmpty() && lease != null) {
      // A leased (simple) consumer is not told the group's retry policy; that is expected.
      log.info(
          "consumer group={} subscriptions={} handlers={} leased delivery {}: parks at each"
              + " handler's maxAttempts (keep it <= the group's retryMaxTimes + 1)",
          config.name(),
          config.subscriptions(),
          routes.keySet(),
          lease);
      return;
    }
    if (max.isEmpty()) {
      log.warn(
          "group={} broker retry policy unknown after {}: parking relies on handler maxAttempts;"
              + " the dead-letter drain catches anything the broker gives up on",
          config.name(),
          wait);
      return;
    }
    brokerMaxAttempts = max.getAsInt();
    for (ConsumePipeline.Route r : routes.values()) {
      if (r.definition().maxAttempts() > brokerMaxAttempts) {
        log.warn(
            "group={} handler={} maxAttempts={} exceeds the broker's {}: parks at attempt {}",
            config.name(),
            r.definition(),
            r.definition().maxAttempts(),
            brokerMaxAttempts,
            brokerMaxAttempts);
      }
    }
    log.info(
        "consumer group={} subscriptions={} handlers={} brokerMaxAttempts={}",
        config.name(),
        config.subscriptions(),
        routes.keySet(),
        brokerMaxAttempts);
  }

  int brokerMaxAttempts() {
    return brokerMaxAttempts;
  }

  @Override
  public Verdict onMessage(InboundMessage view) {
    long start = System.nanoTime();
    ConsumeOutcome outcome;
    String eventId;
    String eventType;
    java.time.Instant born = null;
    try {
      IncomingEvent e = EnvelopeCodec.decode(view);
      eventId = e.eventId();
      eventType = e.eventType();
      born = e.originTime();
      outcome = route(e);
    } catch (MalformedEventException m) {
      IncomingEvent p = EnvelopeCodec.placeholder(view);
      eventId = p.eventId();
      eventType = p.eventType();
      outcome =
          pipeline.parking().park(config.name(), p, Parking.reasonOf(m), null, m.getMessage());
    } catch (RuntimeException | Error unexpected) {
      // A bug, not a verdict: log it loudly and let the broker redeliver.
      log.error(
          "consume failed group={} messageId={}",
          config.name(),
          LogSafe.escape(view.messageId()),
          unexpected);
      return Verdict.RETRY;
    }
    metrics.consumed(config.name(), eventType, outcome, System.nanoTime() - start, born);
    listener.onOutcome(config.name(), eventType, eventId, outcome);
    if (outcome == ConsumeOutcome.RETRY) {
      return Verdict.RETRY;
    }
    if (!interceptor.beforeAck(config.name(), eventId)) {
      return Verdict.RETRY; // simulated crash between commit and ack
    }
    return Verdict.ACK;
  }

  private ConsumeOutcome route(IncomingEvent e) {
    ConsumePipeline.Route route = routes.get(e.eventType());
    if (route != null) {
      int parkAt = Math.min(route.definition().maxAttempts(), brokerMaxAttempts);
      return pipeline.deliver(config.name(), e, route, parkAt);
    }
    if (config.ignoredEventTypes().contains(e.eventType())) {
      return ConsumeOutcome.IGNORED;
    }
    // Maybe another instance (a newer deploy) has the handler: retry, then park as NO_HANDLER.
    if (e.deliveryAttempt() >= Math.min(config.maxAttempts(), brokerMaxAttempts)) {
      return pipeline
          .parking()
          .park(
              config.name(),
              e,
              ParkReason.NO_HANDLER,
              null,
              "no handler for event type "
                  + LogSafe.quote(e.eventType())
                  + " in group "
                  + config.name());
    }
    log.info(
        "no handler group={} eventType={} eventId={} attempt={} (redelivered later)",
        config.name(),
        LogSafe.escape(e.eventType()),
        LogSafe.escape(e.eventId()),
        e.deliveryAttempt());
    return ConsumeOutcome.RETRY;
  }

  @Override
  public void close() throws Exception {
    if (subscription != null) {
      subscription.close();
    }
  }
}
