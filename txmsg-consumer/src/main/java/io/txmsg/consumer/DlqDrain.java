package io.txmsg.consumer;

import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code %DLQ%<group>} with its own consumer group and parks every message there with reason
 * BROKER_DLQ (unless the consume log shows it applied): whatever the broker gave up on ends in the
 * dead-letter table where the CLI sees it and a replay can apply it. The broker creates the DLQ
 * topic lazily, so until it exists the drain retries its subscription.
 */
final class DlqDrain implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DlqDrain.class);

  private final String group;
  private final Parking parking;
  private final ConsumeListener listener;
  private volatile PushConsumer consumer;
  private volatile boolean closed;

  DlqDrain(String group, Parking parking, ConsumeListener listener) {
    this.group = group;
    this.parking = parking;
    this.listener = listener;
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
      long retryMillis) {
    scheduler.execute(() -> tryStart(provider, config, scheduler, retryMillis));
  }

  private void tryStart(
      ClientServiceProvider provider,
      ClientConfiguration config,
      ScheduledExecutorService scheduler,
      long retryMillis) {
    if (closed) {
      return;
    }
    try {
      consumer =
          provider
              .newPushConsumerBuilder()
              .setClientConfiguration(config)
              .setConsumerGroup(drainGroup(group))
              .setSubscriptionExpressions(Map.of(topic(group), FilterExpression.SUB_ALL))
              .setConsumptionThreadCount(1)
              .setMessageListener(this::onMessage)
              .build();
      log.info("draining {} into the dead-letter table", topic(group));
      if (closed) {
        consumer.close();
      }
    } catch (Exception e) {
      // Usually "topic not found": the broker has not moved anything there yet.
      log.debug("{} not drainable yet: {}", topic(group), e.toString());
      scheduler.schedule(
          () -> tryStart(provider, config, scheduler, retryMillis),
          retryMillis,
          TimeUnit.MILLISECONDS);
    }
  }

  private ConsumeResult onMessage(MessageView view) {
    IncomingEvent e;
    String reason = "BROKER_DLQ";
    String why = "the broker moved it to " + topic(group) + " after its last delivery attempt";
    try {
      e = Deliveries.decode(view);
    } catch (MalformedEventException m) {
      e = Deliveries.placeholder(view);
      reason = m.reason();
      why = m.getMessage();
    }
    ConsumeOutcome outcome = parking.park(group, e, reason, null, why);
    listener.onOutcome(group, e.eventType(), e.eventId(), outcome);
    return outcome == ConsumeOutcome.RETRY ? ConsumeResult.FAILURE : ConsumeResult.SUCCESS;
  }

  @Override
  public void close() throws Exception {
    closed = true;
    PushConsumer c = consumer;
    if (c != null) {
      c.close();
    }
  }
}
