package io.txmsg.api;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/** Field checks of {@link TxMessage}; every failure names the field. */
final class TxMessageValidator {
  static final int MAX_ID_LENGTH = 64;
  static final int MAX_AGGREGATE_ID_LENGTH = 128;
  static final int MAX_BUSINESS_KEY_LENGTH = 128;
  static final int MAX_HEADERS = 32;
  static final int MAX_HEADER_VALUE_BYTES = 1024;
  static final String RESERVED_HEADER_PREFIX = "txmsg_";

  private static final Pattern EVENT_ID = Pattern.compile("[A-Za-z0-9._:\\-]+");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._\\-]+");
  // RocketMQ topic names: letters, digits, '%', '|', '_', '-' up to 127 chars.
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9%|_\\-]{1,127}");
  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_\\-]{0,63}");

  private TxMessageValidator() {}

  static void validate(TxMessage.Builder b) {
    requireToken("eventId", b.eventId(), MAX_ID_LENGTH, EVENT_ID);
    if (b.topic() == null || b.topic().isBlank()) {
      throw new InvalidTxMessageException("topic", "is required");
    }
    if (!TOPIC.matcher(b.topic()).matches()) {
      throw new InvalidTxMessageException(
          "topic", "must be 1..127 characters of [A-Za-z0-9%|_-], was " + LogSafe.quote(b.topic()));
    }
    if (b.tagValue() != null) {
      if (b.tagValue().isBlank()
          || b.tagValue().contains("||")
          || b.tagValue().contains("*")
          || b.tagValue().length() > 128) {
        throw new InvalidTxMessageException(
            "tag", "must be non-blank, at most 128 characters, without '||' or '*'");
      }
    }
    requireToken("eventType", b.eventType(), MAX_ID_LENGTH, NAME);
    if (b.eventVersion() < 1) {
      throw new InvalidTxMessageException("eventVersion", "must be >= 1, was " + b.eventVersion());
    }
    requireToken("aggregateType", b.aggregateType(), MAX_ID_LENGTH, NAME);
    requireText("aggregateId", b.aggregateId(), MAX_AGGREGATE_ID_LENGTH);
    if (b.aggregateVersion() < 0) {
      throw new InvalidTxMessageException(
          "aggregateVersion", "must be >= 0, was " + b.aggregateVersion());
    }
    if (b.businessKey() != null) {
      requireText("businessKey", b.businessKey(), MAX_BUSINESS_KEY_LENGTH);
    }
    if (b.messageGroupValue() != null) {
      // journal.message_group is VARCHAR(128).
      requireText("messageGroup", b.messageGroupValue(), 128);
    }
    if (b.payloadBytes() == null && b.payloadObjectValue() == null) {
      throw new InvalidTxMessageException("payload", "is required (bytes or an object)");
    }
    // An empty body would pass here and fail only at the half-message send, as BAD_REQUEST:
    // reject it where the caller can still see which field is wrong. An empty byte[] given as the
    // object is the same mistake (the
    // producer rejects an empty serialized or sanitized payload as well, before any side effect).
    if ((b.payloadBytes() != null && b.payloadBytes().length == 0)
        || (b.payloadObjectValue() instanceof byte[] bytes && bytes.length == 0)) {
      throw new InvalidTxMessageException("payload", "must not be empty");
    }
    Map<String, String> headers = b.headerMap();
    if (headers.size() > MAX_HEADERS) {
      throw new InvalidTxMessageException(
          "headers", "at most " + MAX_HEADERS + " headers, was " + headers.size());
    }
    for (Map.Entry<String, String> h : headers.entrySet()) {
      String name = h.getKey();
      if (name == null || !HEADER_NAME.matcher(name).matches()) {
        throw new InvalidTxMessageException(
            "headers",
            "header name " + LogSafe.quote(name) + " must match " + HEADER_NAME.pattern());
      }
      if (name.toLowerCase().startsWith(RESERVED_HEADER_PREFIX)) {
        throw new InvalidTxMessageException(
            "headers[" + name + "]", "the prefix '" + RESERVED_HEADER_PREFIX + "' is reserved");
      }
      if (h.getValue() == null) {
        throw new InvalidTxMessageException("headers[" + name + "]", "value is null");
      }
      if (h.getValue().getBytes(StandardCharsets.UTF_8).length > MAX_HEADER_VALUE_BYTES) {
        throw new InvalidTxMessageException(
            "headers[" + name + "]", "value exceeds " + MAX_HEADER_VALUE_BYTES + " bytes");
      }
    }
  }

  /** Whether {@link #validate} would accept this header (name pattern, prefix, value size). */
  static boolean acceptsHeader(String name, String value) {
    return name != null
        && value != null
        && HEADER_NAME.matcher(name).matches()
        && !name.toLowerCase(java.util.Locale.ROOT).startsWith(RESERVED_HEADER_PREFIX)
        && value.getBytes(StandardCharsets.UTF_8).length <= MAX_HEADER_VALUE_BYTES;
  }

  private static void requireToken(String field, String value, int max, Pattern pattern) {
    requireText(field, value, max);
    if (!pattern.matcher(value).matches()) {
      throw new InvalidTxMessageException(
          field, "must match " + pattern.pattern() + ", was " + LogSafe.quote(value));
    }
  }

  private static void requireText(String field, String value, int max) {
    if (value == null) {
      throw new InvalidTxMessageException(field, "is required");
    }
    if (value.isBlank()) {
      throw new InvalidTxMessageException(field, "must not be blank");
    }
    if (value.length() > max) {
      throw new InvalidTxMessageException(
          field, "must be at most " + max + " characters, was " + value.length());
    }
  }
}
