package io.txmsg.rocketmq;

import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.java.exception.NotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code %DLQ%<group>} with its own consumer group ({@code txmsg-dlq-<group>}). The broker
 * creates the DLQ topic lazily, so until it exists the subscription is retried.
 *
 * <p>A drain the broker will not let read is not silent: the push consumer starts even when the
 * proxy refuses its group's receives (they then fail inside the client, written only to the
 * client's own log), so each start attempt first receives once through a simple consumer of the
 * drain group, whose receive throws the refusal. A refusal (no right on the topic or on the drain
 * group) is logged as an ERROR naming the rights to grant (every 20th attempt) and reported by
 * {@link #problem()}; the drain keeps trying, so a right granted later lets it start.
 */
final class GrpcDeadLetterDrain implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(GrpcDeadLetterDrain.class);

  /**
   * How long the probe's receive waits for a message when the topic is empty (the usual case): the
   * proxy answers an allowed receive after this, a refused one at once.
   */
  private static final Duration PROBE_AWAIT = Duration.ofSeconds(2);

  /** How long a message the probe received stays invisible when its handling did not ACK it. */
  private static final Duration PROBE_INVISIBLE = Duration.ofSeconds(30);

  private final String group;
  private final GrpcPushSubscription delegate;
  private final Function<Throwable, String> refusal;
  private volatile boolean closed;
  private volatile String problem;
  private int warnings;

  /**
   * @param refusal the transport's wording of a refused client (a missing right or bad
   *     credentials), or null when a failure is not a refusal
   */
  GrpcDeadLetterDrain(String group, DeliveryHandler handler, Function<Throwable, String> refusal) {
    this.group = group;
    this.delegate = new GrpcPushSubscription(drainGroup(group), handler);
    this.refusal = refusal;
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

  /**
   * Why the topic cannot be drained now: the broker refuses the drain group's reads (and which
   * rights to grant); empty while the topic does not exist yet or once the drain runs.
   */
  @Override
  public Optional<String> problem() {
    return Optional.ofNullable(problem);
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
      probe(provider, config);
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
      problem = null;
      log.info("draining {} into the dead-letter table", topic(group));
      if (closed) {
        consumer.close();
      }
      return;
    } catch (Exception e) {
      if (closed || scheduler.isShutdown()) {
        return;
      }
      String refused = refusal.apply(e);
      if (refused != null) {
        problem =
            topic(group)
                + " cannot be drained: "
                + refused
                + "; grant SUB on Topic:"
                + topic(group)
                + " and Group:"
                + drainGroup(group);
        if (warnings++ % 20 == 0) {
          log.error(problem);
        }
      } else if (PublishErrors.find(e, NotFoundException.class) != null) {
        // The usual case: the broker creates the topic with the group's first dead letter.
        log.debug("{} does not exist yet: {}", topic(group), e.toString());
      } else if (warnings++ % 20 == 0) {
        log.warn(
            "{} not drainable yet ({}); trying again every {}",
            topic(group),
            PublishErrors.said(e),
            retry);
      }
    }
    if (!scheduler.isShutdown()) {
      scheduler.schedule(
          () -> tryStart(provider, config, scheduler, retry),
          retry.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * One receive by the drain group through a simple consumer, which throws what the proxy refuses.
   * A message it receives is handled like any drained message: acknowledged when the handler parked
   * it, else visible again after {@link #PROBE_INVISIBLE}.
   */
  private void probe(ClientServiceProvider provider, ClientConfiguration config) throws Exception {
    try (SimpleConsumer probe =
        provider
            .newSimpleConsumerBuilder()
            .setClientConfiguration(config)
            .setConsumerGroup(drainGroup(group))
            .setSubscriptionExpressions(Map.of(topic(group), FilterExpression.SUB_ALL))
            .setAwaitDuration(PROBE_AWAIT)
            .build()) {
      List<MessageView> views = probe.receive(1, PROBE_INVISIBLE);
      for (MessageView view : views) {
        if (delegate.onMessage(view) == ConsumeResult.SUCCESS) {
          probe.ack(view);
        }
      }
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
