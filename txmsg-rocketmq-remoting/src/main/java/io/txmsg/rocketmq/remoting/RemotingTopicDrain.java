package io.txmsg.rocketmq.remoting;

import io.txmsg.api.TransportException;
import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains a topic the broker fills by itself and creates lazily — a group's {@code %DLQ%<group>}, or
 * {@code TRANS_CHECK_MAX_TIME_TOPIC} where it puts the half messages it gave up checking — with a
 * consumer group of its own, from the first offset.
 *
 * <p>Until the topic exists the drain checks again every retry interval, quietly. A topic that
 * exists but cannot be read (a 4.x broker creates DLQ topics write-only) is never drained silently:
 * the drain logs an ERROR naming the command that fixes it, and keeps checking. So does a topic the
 * broker would not let the drain group pull (ACL 2.0 without SUB on the topic or the group): the
 * ERROR names the rights to grant, and {@link #problem()} reports it.
 */
final class RemotingTopicDrain implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(RemotingTopicDrain.class);

  private final String topic;
  private final String drainGroup;
  private final RemotingAdmin admin;
  private final Supplier<DefaultMQPushConsumer> consumers;
  private final DeliveryHandler handler;
  private final String nameServer;
  private volatile DefaultMQPushConsumer consumer;
  private volatile boolean closed;
  private volatile String unreadable;
  private int warnings;

  RemotingTopicDrain(
      String topic,
      String drainGroup,
      RemotingAdmin admin,
      Supplier<DefaultMQPushConsumer> consumers,
      DeliveryHandler handler,
      String nameServer) {
    this.topic = topic;
    this.drainGroup = drainGroup;
    this.admin = admin;
    this.consumers = consumers;
    this.handler = handler;
    this.nameServer = nameServer;
  }

  void start(ScheduledExecutorService scheduler, Duration retry) {
    scheduler.execute(() -> tryStart(scheduler, retry));
  }

  /**
   * Why the topic cannot be drained now: it exists but is not readable, or the broker refuses the
   * drain group's pulls (and how to fix either).
   */
  @Override
  public Optional<String> problem() {
    return Optional.ofNullable(unreadable);
  }

  private synchronized void tryStart(ScheduledExecutorService scheduler, Duration retry) {
    if (closed) {
      return;
    }
    try {
      RemotingAdmin.TopicState state = admin.topic(topic);
      if (!state.exists()) {
        log.debug("{} does not exist yet; checking again in {}", topic, retry);
      } else if (!state.readable()) {
        unreadable =
            topic
                + " exists but is not readable (permission write-only), so nothing can drain it."
                + " Make it readable: mqadmin updateTopicPerm -n "
                + nameServer
                + " -b "
                + state.brokerAddress()
                + " -t "
                + topic
                + " -p 6";
        if (warnings++ % 20 == 0) {
          log.error(unreadable);
        }
      } else if ((unreadable = refusal()) != null) {
        if (warnings++ % 20 == 0) {
          log.error(unreadable);
        }
      } else {
        DefaultMQPushConsumer c = consumers.get();
        c.subscribe(topic, "*");
        c.registerMessageListener(new RemotingPushSubscription(c, handler));
        c.start();
        consumer = c;
        log.info("draining {} with group {}", topic, drainGroup);
        return;
      }
    } catch (Exception e) {
      if (closed || scheduler.isShutdown()) {
        return;
      }
      log.warn("{} not drainable yet ({}); checking again in {}", topic, e.toString(), retry);
    }
    if (scheduler.isShutdown()) {
      return;
    }
    scheduler.schedule(() -> tryStart(scheduler, retry), retry.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Why the broker would refuse the drain group's pulls (a missing ACL right), or null. Checked at
   * each start attempt, so a right granted later lets the drain start then.
   */
  private String refusal() {
    try {
      admin.requireSubscribable(drainGroup, topic);
      return null;
    } catch (TransportException e) {
      return topic
          + " cannot be drained: "
          + e.getMessage()
          + "; grant SUB on Topic:"
          + topic
          + " and Group:"
          + drainGroup;
    }
  }

  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.empty();
  }

  @Override
  public synchronized void close() {
    closed = true;
    DefaultMQPushConsumer c = consumer;
    if (c != null) {
      c.shutdown();
    }
  }
}
