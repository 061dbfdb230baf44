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
 */
public record OutboundMessage(
    String topic, String tag, List<String> keys, Map<String, String> properties, byte[] body) {
  public OutboundMessage {
    Objects.requireNonNull(topic, "topic");
    keys = List.copyOf(keys);
    properties = Map.copyOf(properties);
    Objects.requireNonNull(body, "body");
  }
}
