package io.txmsg.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvelopeCodecTest {
  private final byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

  /** A journal row's envelope fields, as the store's JournalRow provides them. */
  private record Event(
      String getEventId,
      String getAttemptId,
      String getStoreId,
      String getEventType,
      int getEventVersion,
      String getAggregateType,
      String getAggregateId,
      long getAggregateVersion,
      String getPayloadHash,
      Instant getCreatedAt,
      String getDestination,
      String getTag,
      String getBusinessKey,
      String getContentType,
      byte[] getPayload,
      Map<String, String> headerMap)
      implements EnvelopeSource {}

  private Event event() {
    return new Event(
        "e1",
        "a1",
        "s1",
        "Paid",
        1,
        "Payment",
        "p1",
        3,
        PayloadHashes.compute("e1", "Paid", 1, "Payment", "p1", 3, body),
        Instant.ofEpochMilli(1_700_000_000_123L),
        "pay",
        "paid",
        "order-p1",
        "application/json",
        body,
        Map.of("trace", "t-e1"));
  }

  private Map<String, String> valid() {
    return new HashMap<>(EnvelopeCodec.encode(event()).properties());
  }

  @Test
  void whatEncodeWritesDecodeReadsBack() throws Exception {
    OutboundMessage m = EnvelopeCodec.encode(event());
    assertThat(m.topic()).isEqualTo("pay");
    assertThat(m.tag()).isEqualTo("paid");
    assertThat(m.keys()).containsExactly("e1", "order-p1");
    IncomingEvent e =
        EnvelopeCodec.decode(
            new InboundMessage(m.topic(), "m1", m.properties(), m.body(), 1, Instant.now()));
    assertThat(e.eventId()).isEqualTo("e1");
    assertThat(e.eventType()).isEqualTo("Paid");
    assertThat(e.aggregateVersion()).isEqualTo(3);
    assertThat(e.originTime()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_123L));
    assertThat(e.headers()).containsExactly(Map.entry("trace", "t-e1"));
    assertThat(e.properties()).containsEntry(Envelope.CONTENT_TYPE, "application/json");
  }

  @Test
  void aCheckViewBecomesARequestWithTheBrokersCheckCount() {
    Map<String, String> p = valid();
    p.put(EnvelopeCodec.CHECK_TIMES_PROPERTY, "3");
    Instant born = Instant.ofEpochMilli(42);
    CheckbackRequest r =
        EnvelopeCodec.checkbackRequest(new InboundMessage("pay", "m1", p, body, 0, born));
    assertThat(r.eventId()).isEqualTo("e1");
    assertThat(r.attemptId()).isEqualTo("a1");
    assertThat(r.storeId()).isEqualTo("s1");
    assertThat(r.checkTimes()).isEqualTo(3);
    assertThat(r.bornTime()).isEqualTo(born);
    p.put(EnvelopeCodec.CHECK_TIMES_PROPERTY, "x");
    assertThat(
            EnvelopeCodec.checkbackRequest(new InboundMessage("pay", "m1", p, body, 0, born))
                .checkTimes())
        .isEqualTo(-1);
    CheckbackRequest foreign =
        EnvelopeCodec.checkbackRequest(new InboundMessage("pay", "m2", Map.of(), body, 0, born));
    assertThat(foreign.eventId()).isNull();
    assertThat(foreign.checkTimes()).isEqualTo(-1);
  }

  @Test
  void aProducerEnvelopeDecodesWithItsHeaders() throws Exception {
    IncomingEvent e = EnvelopeCodec.decode(valid(), body, "pay", "m1", 2);
    assertThat(e.eventId()).isEqualTo("e1");
    assertThat(e.aggregateVersion()).isEqualTo(3);
    assertThat(e.businessKey()).isEqualTo("order-p1");
    assertThat(e.headers()).containsEntry("trace", "t-e1").doesNotContainKey(Envelope.EVENT_ID);
    assertThat(e.deliveryAttempt()).isEqualTo(2);
  }

  @Test
  void eachMissingOrBrokenFieldIsNamed() {
    for (String field :
        new String[] {
          Envelope.EVENT_ID,
          Envelope.EVENT_TYPE,
          Envelope.EVENT_VERSION,
          Envelope.AGGREGATE_TYPE,
          Envelope.AGGREGATE_ID,
          Envelope.AGGREGATE_VERSION,
          Envelope.ORIGIN_TIME,
          Envelope.PAYLOAD_HASH
        }) {
      Map<String, String> p = valid();
      p.remove(field);
      assertThatThrownBy(() -> EnvelopeCodec.decode(p, body, "pay", "m1", 1))
          .isInstanceOf(MalformedEventException.class)
          .hasMessageContaining(field)
          .satisfies(
              t ->
                  assertThat(((MalformedEventException) t).reason())
                      .isEqualTo("MALFORMED_ENVELOPE"));
    }
    Map<String, String> p = valid();
    p.put(Envelope.AGGREGATE_VERSION, "-1");
    assertThatThrownBy(() -> EnvelopeCodec.decode(p, body, "pay", "m1", 1))
        .hasMessageContaining("out of range");
    Map<String, String> longId = valid();
    longId.put(Envelope.EVENT_ID, "x".repeat(65));
    assertThatThrownBy(() -> EnvelopeCodec.decode(longId, body, "pay", "m1", 1))
        .hasMessageContaining("longer than 64");
  }

  @Test
  void aBodyThatDoesNotMatchTheHashIsAMismatchNotAnEvent() {
    byte[] other = "{\"a\":2}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> EnvelopeCodec.decode(valid(), other, "pay", "m1", 1))
        .satisfies(
            t ->
                assertThat(((MalformedEventException) t).reason())
                    .isEqualTo("PAYLOAD_HASH_MISMATCH"));
  }

  @Test
  void aPlaceholderKeepsAReadableEventIdOrFallsBackToTheMessageId() {
    assertThat(EnvelopeCodec.placeholder(valid(), body, "pay", "m1", 1).eventId()).isEqualTo("e1");
    IncomingEvent foreign = EnvelopeCodec.placeholder(Map.of(), body, "pay", "m1", 1);
    assertThat(foreign.eventId()).isEqualTo("msg:m1");
    assertThat(foreign.payloadHash()).isEqualTo(EnvelopeCodec.sha256(body)).hasSize(64);
  }
}
