package io.txmsg.testkit.rocketmq;

/**
 * The message type of a topic (the broker's {@code message.type} attribute). The gRPC client and
 * the proxy only accept messages of the topic's type: a plain send to a {@link #TRANSACTION} topic
 * is rejected.
 */
public enum TopicType {
  /** Plain messages. */
  NORMAL,
  /** Messages with a message group, delivered in order within the group. */
  FIFO,
  /** Transactional (half) messages, committed or rolled back by the producer. */
  TRANSACTION,
  /** Messages with a delivery timestamp. */
  DELAY
}
