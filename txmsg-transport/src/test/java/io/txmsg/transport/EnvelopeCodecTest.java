package io.txmsg.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.api.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvelopeDecoderTest {
  private final byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

  private Map<String, String> valid() {
    return new HashMap<>(ConsumerHarness.envelope("e1", "Paid", "Payment", "p1", 3, body));
  }

  @Test
  void aProducerEnvelopeDecodesWithItsHeaders() throws Exception {
    IncomingEvent e = EnvelopeDecoder.decode(valid(), body, "pay", "m1", 2);
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
      assertThatThrownBy(() -> EnvelopeDecoder.decode(p, body, "pay", "m1", 1))
          .isInstanceOf(MalformedEventException.class)
          .hasMessageContaining(field)
          .satisfies(
              t ->
                  assertThat(((MalformedEventException) t).reason())
                      .isEqualTo("MALFORMED_ENVELOPE"));
    }
    Map<String, String> p = valid();
    p.put(Envelope.AGGREGATE_VERSION, "-1");
    assertThatThrownBy(() -> EnvelopeDecoder.decode(p, body, "pay", "m1", 1))
        .hasMessageContaining("out of range");
    Map<String, String> longId = valid();
    longId.put(Envelope.EVENT_ID, "x".repeat(65));
    assertThatThrownBy(() -> EnvelopeDecoder.decode(longId, body, "pay", "m1", 1))
        .hasMessageContaining("longer than 64");
  }

  @Test
  void aBodyThatDoesNotMatchTheHashIsAMismatchNotAnEvent() {
    byte[] other = "{\"a\":2}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> EnvelopeDecoder.decode(valid(), other, "pay", "m1", 1))
        .satisfies(
            t ->
                assertThat(((MalformedEventException) t).reason())
                    .isEqualTo("PAYLOAD_HASH_MISMATCH"));
  }

  @Test
  void aPlaceholderKeepsAReadableEventIdOrFallsBackToTheMessageId() {
    assertThat(EnvelopeDecoder.placeholder(valid(), body, "pay", "m1", 1).eventId())
        .isEqualTo("e1");
    IncomingEvent foreign = EnvelopeDecoder.placeholder(Map.of(), body, "pay", "m1", 1);
    assertThat(foreign.eventId()).isEqualTo("msg:m1");
    assertThat(foreign.payloadHash()).isEqualTo(EnvelopeDecoder.sha256(body)).hasSize(64);
  }
}
