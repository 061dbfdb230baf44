package io.txmsg.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.txmsg.api.PayloadSerializer;
import java.io.IOException;

/** The default payload serializer: JSON with Jackson, java.time as ISO strings. */
public final class JsonPayloadSerializer implements PayloadSerializer {
  private final ObjectMapper mapper;

  public JsonPayloadSerializer() {
    this(
        new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            // Deterministic bytes: an idempotent retry must hash the same.
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            // An event written by a newer class (an added field) is read by an older one: a rolling
            // deploy must not park it at every consumer still on the older class.
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
  }

  public JsonPayloadSerializer(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public byte[] serialize(Object payload) {
    try {
      return mapper.writeValueAsBytes(payload);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "payload of type " + payload.getClass().getName() + " cannot be written as JSON", e);
    }
  }

  @Override
  public <T> T deserialize(byte[] payload, Class<T> type) {
    try {
      return mapper.readValue(payload, type);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "payload is not a valid " + type.getName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String contentType() {
    return "application/json";
  }
}
