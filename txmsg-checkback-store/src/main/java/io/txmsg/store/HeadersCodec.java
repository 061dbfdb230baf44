package io.txmsg.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/**
 * A string map as stored in a headers column (the journal's application headers, a dead letter's
 * message properties): a JSON object with sorted keys, NULL when empty.
 */
public final class HeadersCodec {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private HeadersCodec() {}

  public static String encode(Map<String, String> headers) {
    try {
      return headers.isEmpty() ? null : MAPPER.writeValueAsString(new TreeMap<>(headers));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("headers are plain strings and always encode", e);
    }
  }

  public static Map<String, String> decode(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      return MAPPER.readValue(json, new TypeReference<TreeMap<String, String>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("headers column is not a JSON object: " + json, e);
    }
  }
}
