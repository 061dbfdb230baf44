package io.txmsg.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txmsg.testkit.db.DatabaseIndependent;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The serializer over the application's Jackson 3 mapper, whatever that mapper is set to. */
@DatabaseIndependent
class Jackson3PayloadSerializerTest {
  /** An application's mapper that fails on unknown properties. */
  private final JsonMapper strict =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  public record Paid(String orderId, int amount) {}

  @Test
  void readsAPayloadWithPropertiesItsTypeDoesNotHave() {
    byte[] newer =
        "{\"orderId\":\"o-1\",\"amount\":5,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(new Jackson3PayloadSerializer(strict).deserialize(newer, Paid.class))
        .isEqualTo(new Paid("o-1", 5));
  }

  @Test
  void writesMapEntriesInKeyOrderSoThatARetryHashesTheSame() {
    Map<String, Integer> unordered = new LinkedHashMap<>();
    unordered.put("b", 2);
    unordered.put("a", 1);
    assertThat(new String(new Jackson3PayloadSerializer(strict).serialize(unordered)))
        .isEqualTo("{\"a\":1,\"b\":2}");
  }

  @Test
  void anUnreadablePayloadIsAnIllegalArgumentNamingTheType() {
    assertThatThrownBy(
            () ->
                new Jackson3PayloadSerializer(strict)
                    .deserialize("{not json".getBytes(StandardCharsets.UTF_8), Paid.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Paid.class.getName());
  }
}
