package io.txmsg.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Derives stable event ids, so that a retried business command reuses its eventId. */
public final class EventIds {
  private EventIds() {}

  /**
   * A deterministic id for one business fact: {@code <eventType>-<first 40 hex chars of
   * SHA-256(eventType NUL businessKey)>}, at most 64 characters. The same command retried yields
   * the same id, so the journal's primary key makes the retry idempotent.
   *
   * @throws InvalidTxMessageException if an argument is blank or the event type is longer than 23
   *     characters (the id would exceed 64)
   */
  public static String fromBusinessKey(String eventType, String businessKey) {
    if (eventType == null || eventType.isBlank() || eventType.length() > 23) {
      throw new InvalidTxMessageException("eventType", "must be 1..23 characters to derive an id");
    }
    if (businessKey == null || businessKey.isBlank()) {
      throw new InvalidTxMessageException("businessKey", "is required to derive an eventId");
    }
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(eventType.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(businessKey.getBytes(StandardCharsets.UTF_8));
      return eventType + "-" + HexFormat.of().formatHex(sha.digest()).substring(0, 40);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }
}
