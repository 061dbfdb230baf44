package io.txmsg.bench;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;

/**
 * The journal row the hand-written baselines (b+) and (br+) write (and rocketmq-spring (c) writes
 * the same, {@code txmsg-bench-spring}): txmsg's journal columns and indexes ({@link
 * Sql#handJournalTable()}), filled as txmsg fills them for the same event, so the database work per
 * event is txmsg's minus what only txmsg does (the attempt row, the self-check).
 *
 * <p>The values: the event id as primary key and message key, a random id where txmsg writes its
 * attempt id, the aggregate (Payment, the event id, version 1), event type and version, the topic
 * as destination, the business key, the payload and its SHA-256, status PENDING, next_retry_at =
 * now + txmsg's default republishAfter (when a republisher would look at the row again), created_at
 * and updated_at = now, publish mode HALF_MESSAGE.
 */
final class HandJournal {
  static final String TABLE = "hand_journal";

  /** txmsg's default republishAfter: the row's next_retry_at, as txmsg computes it. */
  static final Duration REPUBLISH_AFTER = Duration.ofMinutes(10);

  static final String STORE_ID = "bench-hand";

  private static final String INSERT =
      "INSERT INTO "
          + TABLE
          + " (event_id, attempt_id, store_id, aggregate_type, aggregate_id, aggregate_version,"
          + " event_type, event_version, destination, tag, message_key, business_key, payload,"
          + " payload_hash, content_type, headers, status, retry_count, next_retry_at,"
          + " checkback_count, created_at, updated_at, publish_mode, message_group)"
          + " VALUES (?, ?, ?, 'Payment', ?, 1, 'PaymentSucceeded', 1, ?, NULL, ?, ?, ?, ?, NULL,"
          + " NULL, 'PENDING', 0, ?, 0, ?, ?, 'HALF_MESSAGE', NULL)";

  private HandJournal() {}

  /** Inserts the row of event {@code id} on {@code topic}, in the caller's transaction. */
  static void insert(Connection c, String topic, String id) throws SQLException {
    long now = System.currentTimeMillis();
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(1, id);
      ps.setString(2, UUID.randomUUID().toString());
      ps.setString(3, STORE_ID);
      ps.setString(4, id);
      ps.setString(5, topic);
      ps.setString(6, id);
      ps.setString(7, "order-" + id);
      ps.setBytes(8, BenchMain.PAYLOAD);
      ps.setString(9, sha256(BenchMain.PAYLOAD)); // per event, as for any payload
      ps.setTimestamp(10, new Timestamp(now + REPUBLISH_AFTER.toMillis()));
      ps.setTimestamp(11, new Timestamp(now));
      ps.setTimestamp(12, new Timestamp(now));
      ps.executeUpdate();
    }
  }

  /** The hex SHA-256 of the payload (the payload_hash column is NOT NULL). */
  static String sha256(byte[] payload) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
