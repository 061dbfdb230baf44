package io.txmsg.rocketmq.remoting;

import io.txmsg.transport.DeliveryHandler;
import io.txmsg.transport.Subscription;
import io.txmsg.transport.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CLUSTERING {@link DefaultMQPushConsumer}, one message per listener call: ACK is
 * CONSUME_SUCCESS, RETRY (or an exception) RECONSUME_LATER, which sends the message back to the
 * group's retry topic with the broker's delay level for the attempt ({@code messageDelayLevel}: 10
 * s, 30 s, 1 min, … by default). The delivery attempt is {@code reconsumeTimes + 1}. After {@code
 * maxReconsumeTimes} redeliveries the broker moves the message to {@code %DLQ%<group>}.
 */
final class RemotingPushSubscription implements Subscription, MessageListenerConcurrently {
  private static final Logger log = LoggerFactory.getLogger(RemotingPushSubscription.class);

  private final DefaultMQPushConsumer consumer;
  private final DeliveryHandler handler;

  RemotingPushSubscription(DefaultMQPushConsumer consumer, DeliveryHandler handler) {
    this.consumer = consumer;
    this.handler = handler;
  }

  @Override
  public ConsumeConcurrentlyStatus consumeMessage(
      List<MessageExt> messages, ConsumeConcurrentlyContext context) {
    // consumeMessageBatchMaxSize is 1: one message per call, so one verdict per message.
    for (MessageExt m : messages) {
      try {
        Verdict v = handler.onMessage(RemotingMessages.toInbound(m, m.getReconsumeTimes() + 1));
        if (v != Verdict.ACK) {
          return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
      } catch (RuntimeException | Error unexpected) {
        log.error(
            "consume failed group={} messageId={}",
            consumer.getConsumerGroup(),
            m.getMsgId(),
            unexpected);
        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
      }
    }
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  }

  /**
   * The client's maxReconsumeTimes + 1: over remoting the consumer tells the broker when to
   * dead-letter (the send-back request carries it), and the transport set it from the group's
   * broker configuration at subscribe.
   */
  @Override
  public OptionalInt maxDeliveryAttempts(Duration wait) {
    return OptionalInt.of(consumer.getMaxReconsumeTimes() + 1);
  }

  @Override
  public void close() {
    consumer.shutdown();
  }
}
