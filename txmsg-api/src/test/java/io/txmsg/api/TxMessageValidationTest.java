package io.txmsg.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@link TxMessage.Builder#build()} rejects, and that its messages cannot forge log lines. */
class TxMessageValidationTest {
  private static TxMessage.Builder valid() {
    return TxMessage.builder()
        .eventId("evt-1")
        .topic("payment")
        .eventType("PaymentSucceeded")
        .aggregate("Order", "o-1", 1)
        .payload("{}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anEventIdWithANewlineIsRejectedWithoutTheNewlineInTheMessage() {
    assertThatThrownBy(() -> valid().eventId("evt-1\nFAKE LOG LINE").build())
        .isInstanceOf(InvalidTxMessageException.class)
        .satisfies(
            e -> {
              assertThat(((InvalidTxMessageException) e).field()).isEqualTo("eventId");
              assertThat(e.getMessage())
                  .doesNotContain("\n")
                  .doesNotContain("\r")
                  .contains("'evt-1\\nFAKE LOG LINE'");
            });
  }

  @Test
  void controlCharactersInTopicAndHeaderNamesAreEscapedInTheMessage() {
    assertThatThrownBy(() -> valid().topic("pay\r\nment").build())
        .hasMessageContaining("'pay\\r\\nment'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r"));
    assertThatThrownBy(() -> valid().header("x\u2028y\u0007", "v").build())
        .hasMessageContaining("'x\\u2028y\\u0007'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u2028"));
  }

  @Test
  void anEmptyPayloadIsRejectedAtBuildNamingPayload() {
    assertThatThrownBy(() -> valid().payload(new byte[0]).build())
        .isInstanceOf(InvalidTxMessageException.class)
        .satisfies(e -> assertThat(((InvalidTxMessageException) e).field()).isEqualTo("payload"));
    assertThatThrownBy(() -> valid().payloadObject(new byte[0]).build())
        .isInstanceOf(InvalidTxMessageException.class)
        .satisfies(e -> assertThat(((InvalidTxMessageException) e).field()).isEqualTo("payload"));
    assertThat(valid().payload(new byte[] {0}).build().payload()).hasSize(1);
  }

  @Test
  void toStringEscapesFreeTextFields() {
    TxMessage m = valid().businessKey("order-1\nFAKE").aggregate("Order", "o\r1", 1).build();
    assertThat(m.toString()).doesNotContain("\n").doesNotContain("\r").contains("order-1\\nFAKE");
  }

  @Test
  void logSafeEscapesControlsAndBackslashesAndTruncatesLongValues() {
    assertThat(LogSafe.quote(null)).isEqualTo("null");
    assertThat(LogSafe.escape(null)).isNull();
    assertThat(LogSafe.quote("plain-id_1")).isEqualTo("'plain-id_1'");
    assertThat(LogSafe.escape("a\tb\\n\u0000")).isEqualTo("a\\tb\\\\n\\u0000");
    String longValue = "x".repeat(LogSafe.MAX_LENGTH + 10);
    assertThat(LogSafe.escape(longValue))
        .startsWith("x".repeat(LogSafe.MAX_LENGTH))
        .endsWith("...(10 more chars)");
  }
}
