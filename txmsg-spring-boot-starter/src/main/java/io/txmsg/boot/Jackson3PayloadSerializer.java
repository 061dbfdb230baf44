package io.txmsg.boot;

import io.txmsg.api.PayloadSerializer;
import org.springframework.beans.factory.BeanFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payload JSON through the application's Jackson 3 {@link JsonMapper} (the one Spring Boot 4
 * configures, with the application's modules and naming), so that payloads read and written by
 * txmsg look like the rest of the application's JSON.
 *
 * <p>Reading ignores properties the payload type does not have, whatever the mapper says: an event
 * written by a newer class (an added field) must be applied by a consumer still on the older class
 * during a rolling deploy. Writing orders map entries by key: a retried {@code execute} with the
 * same eventId must produce the same bytes, or its payload hash differs and the retry is refused as
 * a conflict.
 */
final class Jackson3PayloadSerializer implements PayloadSerializer {
  private final ObjectWriter writer;
  private final JsonMapper mapper;

  Jackson3PayloadSerializer(JsonMapper mapper) {
    this.mapper = mapper;
    this.writer = mapper.writer().with(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  }

  /** Over the context's unique {@link JsonMapper} bean, or null when it has none. */
  static PayloadSerializer fromContext(BeanFactory beanFactory) {
    JsonMapper mapper = beanFactory.getBeanProvider(JsonMapper.class).getIfUnique();
    return mapper == null ? null : new Jackson3PayloadSerializer(mapper);
  }

  @Override
  public byte[] serialize(Object payload) {
    try {
      return writer.writeValueAsBytes(payload);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "payload of type " + payload.getClass().getName() + " cannot be written as JSON", e);
    }
  }

  @Override
  public <T> T deserialize(byte[] payload, Class<T> type) {
    ObjectReader reader =
        mapper.readerFor(type).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    try {
      return reader.readValue(payload);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "payload is not a valid " + type.getName() + ": " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public String contentType() {
    return "application/json";
  }
}
