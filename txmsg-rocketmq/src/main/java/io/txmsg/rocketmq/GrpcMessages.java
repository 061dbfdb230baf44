package io.txmsg.rocketmq;

import io.txmsg.transport.InboundMessage;
import io.txmsg.transport.OutboundMessage;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.message.MessageView;

/**
 * Converts between the port's messages and rocketmq-client-java's; closes the simple-consumer
 * sources.
 */
final class GrpcMessages {
  private GrpcMessages() {}

  static Message toMessage(ClientServiceProvider provider, OutboundMessage m) {
    MessageBuilder b =
        provider
            .newMessageBuilder()
            .setTopic(m.topic())
            .setKeys(m.keys().toArray(new String[0]))
            .setBody(m.body());
    if (m.tag() != null) {
      b.setTag(m.tag());
    }
    if (m.messageGroup() != null) {
      b.setMessageGroup(m.messageGroup());
    }
    m.properties().forEach(b::addProperty);
    return b.build();
  }

  static InboundMessage toInbound(MessageView view) {
    return toInbound(view, view.getDeliveryAttempt());
  }

  /** The same with the delivery attempt counted by the caller (a local retry). */
  static InboundMessage toInbound(MessageView view, int deliveryAttempt) {
    ByteBuffer buffer = view.getBody().duplicate();
    byte[] body = new byte[buffer.remaining()];
    buffer.get(body);
    return new InboundMessage(
        view.getTopic(),
        view.getMessageId().toString(),
        view.getProperties(),
        body,
        deliveryAttempt,
        Instant.ofEpochMilli(view.getBornTimestamp()));
  }

  /**
   * Closes every consumer (which ends its pending long poll), then waits up to 2 s for each
   * receiver thread; throws the first close failure with the others suppressed.
   */
  static void closeAll(List<? extends AutoCloseable> consumers, List<Thread> receivers)
      throws Exception {
    Exception first = null;
    for (AutoCloseable c : consumers) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    for (Thread t : receivers) {
      t.join(2000);
    }
    if (first != null) {
      throw first;
    }
  }
}
