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
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
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
    return allAcked(messages)
        ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        : ConsumeConcurrentlyStatus.RECONSUME_LATER;
  }

  /**
   * The listener for a group the broker configures as orderly (FIFO): RETRY suspends the queue for
   * the consumer's suspend time and redelivers the same message; after maxReconsumeTimes the client
   * moves it to the DLQ, as for concurrent consumption.
   */
  MessageListenerOrderly orderly() {
    return (messages, context) ->
        allAcked(messages)
            ? ConsumeOrderlyStatus.SUCCESS
            : ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
  }

  /** consumeMessageBatchMaxSize is 1: one message per call, so one verdict per message. */
  private boolean allAcked(List<MessageExt> messages) {
    for (MessageExt m : messages) {
      try {
        Verdict v = handler.onMessage(RemotingMessages.toInbound(m, m.getReconsumeTimes() + 1));
        if (v != Verdict.ACK) {
          return false;
        }
      } catch (RuntimeException | Error unexpected) {
        log.error(
            "consume failed group={} messageId={}",
            consumer.getConsumerGroup(),
            m.getMsgId(),
            unexpected);
        return false;
      }
    }
    return true;
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
