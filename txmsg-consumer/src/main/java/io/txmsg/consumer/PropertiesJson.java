package io.txmsg.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/** Message properties as stored in a dead letter's headers column: a JSON object, keys sorted. */
final class PropertiesJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private PropertiesJson() {}

  static String encode(Map<String, String> properties) {
    try {
      return MAPPER.writeValueAsString(new TreeMap<>(properties));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("string properties always encode", e);
    }
  }

  static Map<String, String> decode(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      return MAPPER.readValue(json, new TypeReference<TreeMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("dead letter headers are not a JSON object", e);
    }
  }
}
