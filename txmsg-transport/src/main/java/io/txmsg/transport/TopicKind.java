package io.txmsg.transport;

/**
 * The kind of message a topic accepts, as a broker reports it (RocketMQ 5: the topic's {@code
 * message.type}). txmsg's producer sends half messages, which need {@link #TRANSACTION}.
 */
public enum TopicKind {
  NORMAL,
  FIFO,
  DELAY,
  TRANSACTION
}
