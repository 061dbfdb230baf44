package io.txmsg.rocketmq;

import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code %DLQ%<group>} with its own consumer group ({@code txmsg-dlq-<group>}). The broker
 * creates the DLQ topic lazily, so until it exists the subscription is retried.
 */
final class GrpcDeadLetterDrain implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(GrpcDeadLetterDrain.class);

  private final String group;
  private final GrpcPushSubscription delegate;
  private volatile boolean closed;

  GrpcDeadLetterDrain(String group, DeliveryHandler handler) {
    this.group = group;
    this.delegate = new GrpcPushSubscription(drainGroup(group), handler);
  }

  static String topic(String group) {
    return "%DLQ%" + group;
  }

  static String drainGroup(String group) {
    return "txmsg-dlq-" + group;
  }

  void start(
      ClientServiceProvider provider,
      ClientConfiguration config,
      ScheduledExecutorService scheduler,
      Duration retry) {
    scheduler.execute(() -> tryStart(provider, config, scheduler, retry));
  }

  private void tryStart(
      ClientServiceProvider provider,
      ClientConfiguration config,
      ScheduledExecutorService scheduler,
      Duration retry) {
    if (closed) {
      return;
    }
    try {
      PushConsumer consumer =
          provider
              .newPushConsumerBuilder()
              .setClientConfiguration(config)
              .setConsumerGroup(drainGroup(group))
              .setSubscriptionExpressions(Map.of(topic(group), FilterExpression.SUB_ALL))
              .setConsumptionThreadCount(1)
              .setMessageListener(delegate::onMessage)
              .build();
      delegate.attach(consumer);
      log.info("draining {} into the dead-letter table", topic(group));
      if (closed) {
        consumer.close();
      }
    } catch (Exception e) {
      // Usually "topic not found": the broker has not moved anything there yet.
      log.debug("{} not drainable yet: {}", topic(group), e.toString());
      scheduler.schedule(
          () -> tryStart(provider, config, scheduler, retry),
          retry.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.empty();
  }

  @Override
  public void close() throws Exception {
    closed = true;
    delegate.close();
  }
}
