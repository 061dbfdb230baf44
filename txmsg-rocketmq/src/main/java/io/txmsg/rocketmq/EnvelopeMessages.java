package io.txmsg.rocketmq;

import io.txmsg.api.Envelope;
import io.txmsg.store.JournalRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageBuilder;

/**
 * Builds the RocketMQ message of a journal row. Everything comes from the row, so the first send
 * and every republish are byte-identical (same body, keys, tag and envelope properties).
 */
final class EnvelopeMessages {
  private final ClientServiceProvider provider;

  EnvelopeMessages(ClientServiceProvider provider) {
    this.provider = provider;
  }

  Message build(JournalRow row) {
    List<String> keys = new ArrayList<>(2);
    keys.add(row.getEventId());
    if (row.getBusinessKey() != null) {
      keys.add(row.getBusinessKey());
    }
    MessageBuilder b =
        provider
            .newMessageBuilder()
            .setTopic(row.getDestination())
            .setKeys(keys.toArray(new String[0]))
            .setBody(row.getPayload())
            .addProperty(Envelope.EVENT_ID, row.getEventId())
            .addProperty(Envelope.ATTEMPT_ID, row.getAttemptId())
            .addProperty(Envelope.STORE_ID, row.getStoreId())
            .addProperty(Envelope.EVENT_TYPE, row.getEventType())
            .addProperty(Envelope.EVENT_VERSION, Integer.toString(row.getEventVersion()))
            .addProperty(Envelope.AGGREGATE_TYPE, row.getAggregateType())
            .addProperty(Envelope.AGGREGATE_ID, row.getAggregateId())
            .addProperty(Envelope.AGGREGATE_VERSION, Long.toString(row.getAggregateVersion()))
            .addProperty(Envelope.PAYLOAD_HASH, row.getPayloadHash())
            .addProperty(Envelope.ORIGIN_TIME, Long.toString(row.getCreatedAt().toEpochMilli()));
    if (row.getTag() != null) {
      b.setTag(row.getTag());
    }
    if (row.getBusinessKey() != null) {
      b.addProperty(Envelope.BUSINESS_KEY, row.getBusinessKey());
    }
    if (row.getContentType() != null) {
      b.addProperty(Envelope.CONTENT_TYPE, row.getContentType());
    }
    for (Map.Entry<String, String> h : HeadersCodec.decode(row.getHeaders()).entrySet()) {
      b.addProperty(Envelope.HEADER_PREFIX + h.getKey(), h.getValue());
    }
    return b.build();
  }
}
