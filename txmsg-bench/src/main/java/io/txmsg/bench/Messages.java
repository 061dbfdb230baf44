package io.txmsg.bench;

import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import io.txmsg.api.TxMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.Message;

/** The messages the benchmarks send: txmsg's, a bare raw one, and txmsg's envelope sent raw. */
final class Messages {
  private final ClientServiceProvider provider;

  Messages(ClientServiceProvider provider) {
    this.provider = provider;
  }

  /** The business event every txmsg variant sends. */
  static TxMessage txMessage(String topic, String id) {
    return TxMessage.builder()
        .eventId(id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .businessKey("order-" + id)
        .payload(BenchMain.PAYLOAD)
        .build();
  }

  /** A bare message: key and event id property only. */
  Message raw(String topic, String id) {
    return provider
        .newMessageBuilder()
        .setTopic(topic)
        .setKeys(id)
        .addProperty(Envelope.EVENT_ID, id)
        .setBody(BenchMain.PAYLOAD)
        .build();
  }

  Message envelope(String topic, String id) {
    return envelope(topic, id, false);
  }

  /** The envelope as txmsg sends it (with businessKey: keys eventId and business key). */
  Message envelope(String topic, String id, boolean businessKeyAsKey) {
    Map<String, String> p = new HashMap<>();
    p.put(Envelope.EVENT_ID, id);
    p.put(Envelope.ATTEMPT_ID, UUID.randomUUID().toString());
    p.put(Envelope.STORE_ID, "bench-preload");
    p.put(Envelope.EVENT_TYPE, "PaymentSucceeded");
    p.put(Envelope.EVENT_VERSION, "1");
    p.put(Envelope.AGGREGATE_TYPE, "Payment");
    p.put(Envelope.AGGREGATE_ID, id);
    p.put(Envelope.AGGREGATE_VERSION, "1");
    p.put(Envelope.BUSINESS_KEY, "order-" + id);
    p.put(
        Envelope.PAYLOAD_HASH,
        PayloadHashes.compute(id, "PaymentSucceeded", 1, "Payment", id, 1, BenchMain.PAYLOAD));
    p.put(Envelope.ORIGIN_TIME, Long.toString(System.currentTimeMillis()));
    var mb =
        provider
            .newMessageBuilder()
            .setTopic(topic)
            .setKeys(businessKeyAsKey ? new String[] {id, "order-" + id} : new String[] {id})
            .setBody(BenchMain.PAYLOAD);
    p.forEach(mb::addProperty);
    return mb.build();
  }
}
