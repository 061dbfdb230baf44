package io.txmsg.api;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The payload hash of an event: SHA-256 over eventId, eventType, eventVersion, aggregateType,
 * aggregateId, aggregateVersion and the payload bytes, each length-prefixed so that field
 * boundaries cannot shift. Never over per-send properties, so every republish of an event carries
 * the same hash; consumers use it to tell a duplicate from a different event reusing an eventId.
 */
public final class PayloadHashes {
  private PayloadHashes() {}

  /** Lower-case hex, 64 characters. */
  public static String compute(
      String eventId,
      String eventType,
      int eventVersion,
      String aggregateType,
      String aggregateId,
      long aggregateVersion,
      byte[] payload) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      field(sha, eventId.getBytes(StandardCharsets.UTF_8));
      field(sha, eventType.getBytes(StandardCharsets.UTF_8));
      field(sha, ByteBuffer.allocate(4).putInt(eventVersion).array());
      field(sha, aggregateType.getBytes(StandardCharsets.UTF_8));
      field(sha, aggregateId.getBytes(StandardCharsets.UTF_8));
      field(sha, ByteBuffer.allocate(8).putLong(aggregateVersion).array());
      field(sha, payload);
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }

  private static void field(MessageDigest sha, byte[] bytes) {
    sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
    sha.update(bytes);
  }
}
