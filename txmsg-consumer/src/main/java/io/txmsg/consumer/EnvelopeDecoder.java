package io.txmsg.consumer;

import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the txmsg envelope from message properties and checks it: every field present and within
 * the column sizes, and the payload hash recomputed from the body. A message failing any check is
 * not an event txmsg can apply; {@link #decodeOrPlaceholder} still gives an event to park it under.
 */
final class EnvelopeDecoder {
  private EnvelopeDecoder() {}

  static IncomingEvent decode(
      Map<String, String> properties, byte[] body, String topic, String messageId, int attempt)
      throws MalformedEventException {
    String eventId = text(properties, Envelope.EVENT_ID, 64);
    String eventType = text(properties, Envelope.EVENT_TYPE, 64);
    int eventVersion = (int) number(properties, Envelope.EVENT_VERSION, Integer.MAX_VALUE);
    String aggregateType = text(properties, Envelope.AGGREGATE_TYPE, 64);
    String aggregateId = text(properties, Envelope.AGGREGATE_ID, 128);
    long aggregateVersion = number(properties, Envelope.AGGREGATE_VERSION, Long.MAX_VALUE);
    long originMillis = number(properties, Envelope.ORIGIN_TIME, Long.MAX_VALUE);
    String hash = properties.get(Envelope.PAYLOAD_HASH);
    if (hash == null || !hash.matches("[0-9a-f]{64}")) {
      throw new MalformedEventException(
          "MALFORMED_ENVELOPE", Envelope.PAYLOAD_HASH + " missing or not 64 hex characters");
    }
    String businessKey = properties.get(Envelope.BUSINESS_KEY);
    if (businessKey != null && businessKey.length() > 128) {
      throw new MalformedEventException(
          "MALFORMED_ENVELOPE", Envelope.BUSINESS_KEY + " longer than 128 characters");
    }
    String computed =
        PayloadHashes.compute(
            eventId, eventType, eventVersion, aggregateType, aggregateId, aggregateVersion, body);
    if (!computed.equals(hash)) {
      throw new MalformedEventException(
          "PAYLOAD_HASH_MISMATCH",
          "payload hash in the envelope does not match the message (corrupted or forged)");
    }
    return new IncomingEvent(
        eventId,
        eventType,
        eventVersion,
        aggregateType,
        aggregateId,
        aggregateVersion,
        businessKey,
        hash,
        Instant.ofEpochMilli(originMillis),
        body,
        headers(properties),
        properties,
        topic,
        messageId,
        attempt);
  }

  /**
   * The event to park a malformed message under: its eventId when that much is readable, else
   * {@code msg:<broker message id>}; the request hash is the SHA-256 of the body, so a later
   * well-formed delivery of the same eventId is recorded as a conflict, never applied blindly.
   */
  static IncomingEvent placeholder(
      Map<String, String> properties, byte[] body, String topic, String messageId, int attempt) {
    String id = properties.get(Envelope.EVENT_ID);
    if (id == null || id.isBlank() || id.length() > 64) {
      id = "msg:" + (messageId == null ? "unknown" : messageId);
      id = id.length() > 64 ? id.substring(0, 64) : id;
    }
    String type = properties.get(Envelope.EVENT_TYPE);
    return new IncomingEvent(
        id,
        type != null && type.length() <= 64 ? type : null,
        0,
        null,
        null,
        0,
        null,
        sha256(body),
        null,
        body,
        headers(properties),
        properties,
        topic,
        messageId,
        attempt);
  }

  private static Map<String, String> headers(Map<String, String> properties) {
    Map<String, String> h = new TreeMap<>();
    properties.forEach(
        (k, v) -> {
          if (k.startsWith(Envelope.HEADER_PREFIX)) {
            h.put(k.substring(Envelope.HEADER_PREFIX.length()), v);
          }
        });
    return h;
  }

  private static String text(Map<String, String> p, String name, int max)
      throws MalformedEventException {
    String v = p.get(name);
    if (v == null || v.isBlank()) {
      throw new MalformedEventException("MALFORMED_ENVELOPE", name + " is missing");
    }
    if (v.length() > max) {
      throw new MalformedEventException(
          "MALFORMED_ENVELOPE", name + " is longer than " + max + " characters");
    }
    return v;
  }

  private static long number(Map<String, String> p, String name, long max)
      throws MalformedEventException {
    String v = text(p, name, 20);
    try {
      long n = Long.parseLong(v);
      if (n < 0 || n > max) {
        throw new MalformedEventException("MALFORMED_ENVELOPE", name + " out of range: " + v);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new MalformedEventException("MALFORMED_ENVELOPE", name + " is not a number: " + v);
    }
  }

  static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
