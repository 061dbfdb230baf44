package io.txmsg.producer;

import io.txmsg.api.DeliveryMode;
import io.txmsg.api.InvalidTxMessageException;
import io.txmsg.api.PayloadSanitizer;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.TxMessage;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The journal rows of the events one execute writes: the payload serialized, sanitized and checked
 * against the size limit, the row built by {@link JournalRow#of} (which computes the payload hash
 * once), and for a row sent OUTBOX-style its publish mode and FIFO message group.
 */
final class EventRows {
  private final TxProducerSettings settings;
  private final PayloadSerializer serializer;
  private final PayloadSanitizer sanitizer;
  private final Set<String> fifoTopics;
  private final String instanceId;

  /**
   * {@code instanceId}: this producer instance, written into every row so that a live instance can
   * take the row over if this one hangs ({@link InstanceLiveness}); null when that is off.
   */
  EventRows(
      TxProducerSettings settings,
      PayloadSerializer serializer,
      PayloadSanitizer sanitizer,
      Set<String> fifoTopics,
      String instanceId) {
    this.settings = settings;
    this.instanceId = instanceId;
    this.serializer = serializer;
    this.sanitizer = sanitizer;
    this.fifoTopics = Set.copyOf(fifoTopics);
  }

  /**
   * The row of {@code message}'s event, sent as a half message. {@code trace} (the execute span's
   * context) is stored with the application headers, which win on a name clash; it is not part of
   * the payload hash, so a retry of the same eventId from another trace is an idempotent retry,
   * never a conflict. The origin time travels in the envelope and is stored as created_at, so a
   * republish is byte-identical to the first send; every row of one call shares it (with the
   * attempt id it finds a retry's published events: {@code Journal.publishedWith}).
   *
   * @throws InvalidTxMessageException when the payload cannot be serialized, or is empty or too
   *     large after serializing and sanitizing
   */
  JournalRow halfMessage(
      TxMessage message, String attemptId, Instant originTime, Map<String, String> trace) {
    // payload() returns a copy: take it once (it may be up to maxPayloadBytes).
    byte[] payload = message.payload();
    String contentType = null;
    if (payload == null) {
      try {
        payload = serializer.serialize(message.payloadObject());
      } catch (RuntimeException e) {
        InvalidTxMessageException invalid =
            new InvalidTxMessageException(
                "payload",
                "of type "
                    + message.payloadObject().getClass().getName()
                    + " cannot be serialized by "
                    + serializer.getClass().getSimpleName()
                    + ": "
                    + e.getMessage());
        invalid.initCause(e);
        throw invalid;
      }
      contentType = serializer.contentType();
    }
    payload = sanitizer.sanitize(message, payload);
    if (payload == null) {
      throw new InvalidTxMessageException("payload", "the sanitizer returned null");
    }
    if (payload.length == 0) {
      // The serializer or sanitizer produced nothing; the broker would refuse it at send.
      throw new InvalidTxMessageException("payload", "is empty after serializing and sanitizing");
    }
    if (payload.length > settings.maxPayloadBytes()) {
      throw new InvalidTxMessageException(
          "payload", "is " + payload.length + " bytes, the limit is " + settings.maxPayloadBytes());
    }
    JournalRow row =
        JournalRow.of(
            message,
            attemptId,
            settings.storeId(),
            payload,
            contentType,
            TraceHeaders.merge(message.headers(), trace),
            originTime);
    row.setInstanceId(instanceId);
    return row;
  }

  /**
   * The row of {@code message}'s event sent OUTBOX-style: a plain or FIFO send, picked up after
   * publishAfter. In a {@link DeliveryMode#CDC} store the row is a CDC row instead: the relay sends
   * it the same way (byte-identical), the reconciler only after cdcFallbackAfter.
   */
  JournalRow outbox(
      TxMessage message, String attemptId, Instant originTime, Map<String, String> trace) {
    JournalRow row = halfMessage(message, attemptId, originTime, trace);
    row.setPublishMode(
        settings.deliveryMode() == DeliveryMode.CDC ? PublishMode.CDC : PublishMode.SEND);
    row.setMessageGroup(messageGroup(message));
    return row;
  }

  /**
   * The FIFO message group of a row sent OUTBOX-style: the one the message sets, else its aggregate
   * on a FIFO topic, else none. An aggregate key longer than the column (128) is hashed.
   */
  private String messageGroup(TxMessage message) {
    if (message.messageGroup() != null) {
      return message.messageGroup();
    }
    if (!fifoTopics.contains(message.topic())) {
      return null;
    }
    String group = message.aggregateType() + ":" + message.aggregateId();
    return group.length() <= 128 ? group : message.aggregateType() + ":" + sha256Hex(group);
  }

  private static String sha256Hex(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
