package io.txmsg.rocketmq.remoting;

import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/** Converts between the port's messages and rocketmq-client's. */
final class RemotingMessages {
  private RemotingMessages() {}

  static Message toMessage(OutboundMessage m) {
    Message msg = new Message(m.topic(), m.tag(), null, m.body());
    if (!m.keys().isEmpty()) {
      msg.setKeys(m.keys());
    }
    m.properties().forEach(msg::putUserProperty);
    if (m.messageGroup() != null) {
      // What the proxy sets for a gRPC message group: gRPC FIFO consumers of the same topic see
      // the group too. The queue itself is chosen by RemotingProducerChannel.
      MessageAccessor.putProperty(msg, MessageConst.PROPERTY_SHARDING_KEY, m.messageGroup());
    }
    return msg;
  }

  /**
   * @param deliveryAttempt 1-based; 0 for a check-back view or a message read outside a consumer
   *     group's retry cycle
   */
  static InboundMessage toInbound(MessageExt m, int deliveryAttempt) {
    Map<String, String> properties = new HashMap<>(m.getProperties());
    // The broker renames the topic of half, retry and given-up messages; the property keeps the
    // topic the producer sent to, which is what txmsg reports.
    String topic = m.getProperty(MessageConst.PROPERTY_REAL_TOPIC);
    if (topic == null) {
      topic = m.getProperty(MessageConst.PROPERTY_RETRY_TOPIC);
    }
    if (topic == null) {
      topic = m.getTopic();
    }
    String id = m.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
    return new InboundMessage(
        topic,
        id != null ? id : m.getMsgId(),
        Map.copyOf(properties),
        m.getBody() == null ? new byte[0] : m.getBody(),
        deliveryAttempt,
        Instant.ofEpochMilli(m.getBornTimestamp()));
  }
}
