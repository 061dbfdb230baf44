package io.txmsg.consumer;

import java.nio.ByteBuffer;
import org.apache.rocketmq.client.apis.message.MessageView;

/** Turns a RocketMQ delivery into an {@link IncomingEvent}. */
final class Deliveries {
  private Deliveries() {}

  static byte[] body(MessageView view) {
    ByteBuffer b = view.getBody().duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }

  static IncomingEvent decode(MessageView view) throws MalformedEventException {
    return EnvelopeDecoder.decode(
        view.getProperties(),
        body(view),
        view.getTopic(),
        view.getMessageId().toString(),
        view.getDeliveryAttempt());
  }

  static IncomingEvent placeholder(MessageView view) {
    return EnvelopeDecoder.placeholder(
        view.getProperties(),
        body(view),
        view.getTopic(),
        view.getMessageId().toString(),
        view.getDeliveryAttempt());
  }
}
