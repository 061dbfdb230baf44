package io.txmsg.transport;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A message as txmsg hands it to a transport. Built by {@link EnvelopeCodec#encode} from a journal
 * row, so the first send and every republish are byte-identical.
 *
 * @param topic the destination topic
 * @param tag the tag (filter expression value), or null
 * @param keys the message keys (the event id first, then the business key when present)
 * @param properties the envelope and the application headers (unmodifiable)
 * @param body the payload bytes (not copied: callers must not modify it)
 * @param messageGroup the FIFO message group (messages of one group are delivered in send order on
 *     a FIFO topic), or null for a normal message. Over gRPC the client's message group; over
 *     remoting the queue is chosen by the group's hash and the broker's sharding-key property
 *     carries it. Not for half messages (the gRPC client rejects a group on them).
 */
public record OutboundMessage(
    String topic,
    String tag,
    List<String> keys,
    Map<String, String> properties,
    byte[] body,
    String messageGroup) {
  public OutboundMessage {
    Objects.requireNonNull(topic, "topic");
    keys = List.copyOf(keys);
    properties = Map.copyOf(properties);
    Objects.requireNonNull(body, "body");
  }

  /** A normal (not FIFO) message. */
  public OutboundMessage(
      String topic, String tag, List<String> keys, Map<String, String> properties, byte[] body) {
    this(topic, tag, keys, properties, body, null);
  }

  /** This message in a FIFO message group. */
  public OutboundMessage inGroup(String group) {
    return new OutboundMessage(topic, tag, keys, properties, body, group);
  }
}
