package io.txmsg.api;

/** Turns payload objects into bytes and back. The default is JSON (Jackson). */
public interface PayloadSerializer {
  byte[] serialize(Object payload);

  /**
   * @throws IllegalArgumentException when the bytes are not a valid {@code type}: a permanent
   *     failure for consumers (the message is parked, never retried forever)
   */
  <T> T deserialize(byte[] payload, Class<T> type);

  /** MIME type recorded in the envelope, e.g. {@code application/json}. */
  String contentType();
}
