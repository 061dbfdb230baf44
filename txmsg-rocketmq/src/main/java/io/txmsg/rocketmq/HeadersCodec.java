package io.txmsg.rocketmq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/** Application headers as stored in the journal's headers column: a JSON object, keys sorted. */
final class HeadersCodec {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private HeadersCodec() {}

  static String encode(Map<String, String> headers) {
    try {
      return headers.isEmpty() ? null : MAPPER.writeValueAsString(new TreeMap<>(headers));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("headers are plain strings and always encode", e);
    }
  }

  static Map<String, String> decode(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      return MAPPER.readValue(json, new TypeReference<TreeMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("journal headers column is not a JSON object: " + json, e);
    }
  }
}
