package io.txmsg.api;

/**
 * Rewrites a payload before the journal and the broker see it (mask card numbers, drop secrets).
 * Applied once per execute; the hash and every republish use the sanitized bytes. Must be
 * deterministic, or an idempotent retry would be reported as an eventId conflict.
 */
@FunctionalInterface
public interface PayloadSanitizer {
  byte[] sanitize(TxMessage message, byte[] payload);

  static PayloadSanitizer none() {
    return (message, payload) -> payload;
  }
}
