package io.txmsg.transport;

import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.Envelope;
import io.txmsg.api.LogSafe;
import io.txmsg.api.PayloadHashes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one place where the txmsg envelope is written and read: an event (a journal row) becomes an
 * {@link OutboundMessage}, and a delivered message becomes an {@link IncomingEvent} or a {@link
 * CheckbackRequest}. Property names are {@link Envelope}'s.
 *
 * <p>Decoding checks the envelope: every field present and within the column sizes, and the payload
 * hash recomputed from the body. A message failing any check is not an event txmsg can apply
 * ({@link MalformedEventException} with the park reason); {@link #placeholder} still gives an event
 * to park it under.
 */
public final class EnvelopeCodec {
  /** Set by the broker on a check-back view: how many times it has checked this half message. */
  public static final String CHECK_TIMES_PROPERTY = "TRANSACTION_CHECK_TIMES";

  private EnvelopeCodec() {}

  /**
   * The message of an event. Everything comes from {@code e}, so the first send and every republish
   * of a journal row are byte-identical (same body, keys, tag and properties).
   */
  public static OutboundMessage encode(EnvelopeSource e) {
    List<String> keys = new ArrayList<>(2);
    keys.add(e.getEventId());
    if (e.getBusinessKey() != null) {
      keys.add(e.getBusinessKey());
    }
    Map<String, String> p = new HashMap<>();
    p.put(Envelope.EVENT_ID, e.getEventId());
    p.put(Envelope.ATTEMPT_ID, e.getAttemptId());
    p.put(Envelope.STORE_ID, e.getStoreId());
    p.put(Envelope.EVENT_TYPE, e.getEventType());
    p.put(Envelope.EVENT_VERSION, Integer.toString(e.getEventVersion()));
    p.put(Envelope.AGGREGATE_TYPE, e.getAggregateType());
    p.put(Envelope.AGGREGATE_ID, e.getAggregateId());
    p.put(Envelope.AGGREGATE_VERSION, Long.toString(e.getAggregateVersion()));
    p.put(Envelope.PAYLOAD_HASH, e.getPayloadHash());
    p.put(Envelope.ORIGIN_TIME, Long.toString(e.getCreatedAt().toEpochMilli()));
    if (e.getBusinessKey() != null) {
      p.put(Envelope.BUSINESS_KEY, e.getBusinessKey());
    }
    if (e.getContentType() != null) {
      p.put(Envelope.CONTENT_TYPE, e.getContentType());
    }
    e.headerMap().forEach((k, v) -> p.put(Envelope.HEADER_PREFIX + k, v));
    return new OutboundMessage(
        e.getDestination(), e.getTag(), keys, p, e.getPayload(), e.getMessageGroup());
  }

  /** Decodes a delivered message; see {@link #decode(Map, byte[], String, String, int)}. */
  public static IncomingEvent decode(InboundMessage m) throws MalformedEventException {
    return decode(m.properties(), m.body(), m.topic(), m.messageId(), m.deliveryAttempt());
  }

  /**
   * The event to park a malformed delivered message under; see {@link #placeholder(Map, byte[],
   * String, String, int)}.
   */
  public static IncomingEvent placeholder(InboundMessage m) {
    return placeholder(m.properties(), m.body(), m.topic(), m.messageId(), m.deliveryAttempt());
  }

  /**
   * What a check-back view tells: the envelope's ids and the broker's check count ({@value
   * #CHECK_TIMES_PROPERTY}; -1 when absent or unreadable). Never throws for a foreign message: its
   * missing fields are null.
   */
  public static CheckbackRequest checkbackRequest(InboundMessage view) {
    Map<String, String> p = view.properties();
    int checkTimes = -1;
    String times = p.get(CHECK_TIMES_PROPERTY);
    if (times != null) {
      try {
        checkTimes = Integer.parseInt(times.trim());
      } catch (NumberFormatException e) {
        checkTimes = -1;
      }
    }
    return new CheckbackRequest(
        view.topic(),
        p.get(Envelope.EVENT_TYPE),
        p.get(Envelope.EVENT_ID),
        p.get(Envelope.ATTEMPT_ID),
        p.get(Envelope.STORE_ID),
        checkTimes,
        view.bornTime(),
        view.messageId(),
        Map.copyOf(p));
  }

  /**
   * Decodes and checks an envelope (a delivery, or a parked message's stored properties).
   *
   * @throws MalformedEventException naming the missing or broken field, with the park reason
   */
  public static IncomingEvent decode(
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
  public static IncomingEvent placeholder(
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
        throw new MalformedEventException(
            "MALFORMED_ENVELOPE", name + " out of range: " + LogSafe.quote(v));
      }
      return n;
    } catch (NumberFormatException e) {
      throw new MalformedEventException(
          "MALFORMED_ENVELOPE", name + " is not a number: " + LogSafe.quote(v));
    }
  }

  public static String sha256(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }
}
