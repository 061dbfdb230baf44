package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.java.retry.RetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RocketMQ PushConsumer per consumer group, routing by event type to the group's handlers. Acks
 * (SUCCESS) only after the outcome is durable; RETRY becomes FAILURE, which makes the broker
 * redeliver after the group's backoff.
 */
final class GroupConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);

  private final ConsumerGroupConfig config;
  private final Map<String, ConsumePipeline.Route> routes;
  private final ConsumePipeline pipeline;
  private final ConsumeListener listener;
  private final ConsumerInterceptor interceptor;
  private final ConsumerMetrics metrics;
  private volatile int brokerMaxAttempts = Integer.MAX_VALUE;
  private PushConsumer consumer;

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
      ClientServiceProvider provider,
      ClientConfiguration clientConfig,
      int threads,
      Duration retryPolicyWait)
      throws Exception {
    Map<String, FilterExpression> subscriptions = new HashMap<>();
    config
        .subscriptions()
        .forEach(
            (t, tag) -> subscriptions.put(t, new FilterExpression(tag, FilterExpressionType.TAG)));
    consumer =
        provider
            .newPushConsumerBuilder()
            .setClientConfiguration(clientConfig)
            .setConsumerGroup(config.name())
            .setSubscriptionExpressions(subscriptions)
            .setConsumptionThreadCount(threads)
            .setMessageListener(this::onMessage)
            .build();
    checkRetryPolicy(retryPolicyWait);
  }

  /**
   * Reads the group's max delivery attempts announced by the broker and lowers every handler's park
   * threshold to it, so an event is parked (by txmsg, with its reason) before the broker would move
   * it to %DLQ%.
   */
  private void checkRetryPolicy(Duration wait) throws InterruptedException {
    long until = System.nanoTime() + wait.toNanos();
    RetryPolicy policy = retryPolicy();
    while (policy == null && System.nanoTime() < until) {
      Thread.sleep(50);
      policy = retryPolicy();
    }
    if (policy == null) {
      log.warn(
          "group={} broker retry policy unknown after {}: parking relies on handler maxAttempts;"
              + " the %DLQ% drain catches anything the broker gives up on",
          config.name(), wait);
      return;
    }
    brokerMaxAttempts = policy.getMaxAttempts();
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

  /**
   * The retry policy the broker announced to the client (rocketmq-client-java keeps it on its
   * package-private PushConsumerImpl; there is no public accessor in 5.1.0).
   */
  private RetryPolicy retryPolicy() {
    try {
      Method m = consumer.getClass().getMethod("getRetryPolicy");
      m.setAccessible(true);
      return (RetryPolicy) m.invoke(consumer);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("retry policy not readable: {}", e.toString());
      return null;
    }
  }

  int brokerMaxAttempts() {
    return brokerMaxAttempts;
  }

  private ConsumeResult onMessage(MessageView view) {
    long start = System.nanoTime();
    ConsumeOutcome outcome;
    String eventId;
    String eventType;
    java.time.Instant born = null;
    try {
      IncomingEvent e = Deliveries.decode(view);
      eventId = e.eventId();
      eventType = e.eventType();
      born = e.originTime();
      outcome = route(e);
    } catch (MalformedEventException m) {
      IncomingEvent p = Deliveries.placeholder(view);
      eventId = p.eventId();
      eventType = p.eventType();
      outcome = pipeline.parking().park(config.name(), p, m.reason(), null, m.getMessage());
    } catch (RuntimeException | Error unexpected) {
      // A bug, not a verdict: log it loudly and let the broker redeliver.
      log.error(
          "consume failed group={} messageId={}", config.name(), view.getMessageId(), unexpected);
      return ConsumeResult.FAILURE;
    }
    metrics.consumed(config.name(), eventType, outcome, System.nanoTime() - start, born);
    listener.onOutcome(config.name(), eventType, eventId, outcome);
    if (outcome == ConsumeOutcome.RETRY) {
      return ConsumeResult.FAILURE;
    }
    if (!interceptor.beforeAck(config.name(), eventId)) {
      return ConsumeResult.FAILURE; // simulated crash between commit and ack
    }
    return ConsumeResult.SUCCESS;
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
              "NO_HANDLER",
              null,
              "no handler for event type " + e.eventType() + " in group " + config.name());
    }
    log.info(
        "no handler group={} eventType={} eventId={} attempt={} (redelivered later)",
        config.name(),
        e.eventType(),
        e.eventId(),
        e.deliveryAttempt());
    return ConsumeOutcome.RETRY;
  }

  @Override
  public void close() throws Exception {
    if (consumer != null) {
      consumer.close();
    }
  }
}
