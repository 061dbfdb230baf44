package io.txmsg.transport;

import java.time.Instant;
import java.util.Map;

/**
 * The fields of one event that {@link EnvelopeCodec#encode} turns into a message: implemented by
 * the store's journal row (and by tools that build an envelope by hand). Everything the message
 * carries comes from here, never from the call that first sent it.
 */
public interface EnvelopeSource {
  String getEventId();

  String getAttemptId();

  String getStoreId();

  String getEventType();

  int getEventVersion();

  String getAggregateType();

  String getAggregateId();

  long getAggregateVersion();

  String getPayloadHash();

  /** The origin time: when the event was first committed (kept across republishes). */
  Instant getCreatedAt();

  String getDestination();

  /** Null when the message has no tag. */
  String getTag();

  /** Null when the event has no business key. */
  String getBusinessKey();

  /** Null for raw bytes. */
  String getContentType();

  byte[] getPayload();

  /** The application headers (never null). */
  Map<String, String> headerMap();

  /**
   * The FIFO message group the message is sent in, or null (the default) for a normal message or a
   * half message. Part of what makes a republish identical to the first send.
   */
  default String getMessageGroup() {
    return null;
  }
}
