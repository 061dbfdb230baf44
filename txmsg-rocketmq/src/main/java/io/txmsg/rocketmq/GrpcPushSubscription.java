package io.txmsg.rocketmq;

import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Verdict;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.OptionalInt;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.java.retry.RetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer group's rocketmq-client-java {@link PushConsumer}: ACK is SUCCESS, RETRY (or an
 * exception) is FAILURE, which makes the broker redeliver after the group's backoff.
 */
final class GrpcPushSubscription implements Subscription {
  private static final Logger log = LoggerFactory.getLogger(GrpcPushSubscription.class);

  private volatile PushConsumer consumer;
  private final String group;
  private final DeliveryHandler handler;

  GrpcPushSubscription(String group, DeliveryHandler handler) {
    this.group = group;
    this.handler = handler;
  }

  void attach(PushConsumer consumer) {
    this.consumer = consumer;
  }

  ConsumeResult onMessage(MessageView view) {
    try {
      return handler.onMessage(GrpcMessages.toInbound(view)) == Verdict.ACK
          ? ConsumeResult.SUCCESS
          : ConsumeResult.FAILURE;
    } catch (RuntimeException | Error unexpected) {
      // A bug in the handler, not a verdict: log it loudly and let the broker redeliver.
      log.error("consume failed group={} messageId={}", group, view.getMessageId(), unexpected);
      return ConsumeResult.FAILURE;
    }
  }

  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) throws InterruptedException {
    long until = System.nanoTime() + wait.toNanos();
    RetryPolicy policy = retryPolicy();
    while (policy == null && System.nanoTime() < until) {
      Thread.sleep(50);
      policy = retryPolicy();
    }
    return policy == null ? OptionalInt.empty() : OptionalInt.of(policy.getMaxAttempts());
  }

  /**
   * The retry policy the broker announced to the client (rocketmq-client-java keeps it on its
   * package-private PushConsumerImpl; there is no public accessor in 5.1.0).
   */
  private RetryPolicy retryPolicy() {
    PushConsumer c = consumer;
    if (c == null) {
      return null;
    }
    try {
      Method m = c.getClass().getMethod("getRetryPolicy");
      m.setAccessible(true);
      return (RetryPolicy) m.invoke(c);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("retry policy not readable: {}", e.toString());
      return null;
    }
  }

  @Override
  public void close() throws Exception {
    PushConsumer c = consumer;
    if (c != null) {
      c.close();
    }
  }
}
