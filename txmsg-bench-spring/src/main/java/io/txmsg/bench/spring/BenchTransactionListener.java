package io.txmsg.bench.spring;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.spring.annotation.RocketMQTransactionListener;
import org.apache.rocketmq.spring.core.RocketMQLocalTransactionListener;
import org.apache.rocketmq.spring.core.RocketMQLocalTransactionState;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.messaging.Message;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The usual rocketmq-spring pattern: the local transaction inserts the business row and a journal
 * row in one JDBC transaction; the check-back looks the journal row up. The journal is the one the
 * hand-written baselines (b+)/(br+) write, on the same database (txmsg-bench creates it: txmsg's
 * journal columns and indexes), filled with the same values, so the database work per event is like
 * theirs.
 */
@RocketMQTransactionListener
public class BenchTransactionListener implements RocketMQLocalTransactionListener {
  /** Check-backs answered, for the report's per-variant counts. */
  static final AtomicLong CHECKBACKS = new AtomicLong();

  /** txmsg's default republishAfter, as the hand-written baselines set next_retry_at. */
  private static final long REPUBLISH_AFTER_MS = 10 * 60 * 1000;

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final String insertJournal;
  private final String findJournal;

  public BenchTransactionListener(
      JdbcTemplate jdbc,
      TransactionTemplate tx,
      @Value("${bench.journal-table}") String journal,
      @Value("${bench.store-id}") String storeId) {
    this.jdbc = jdbc;
    this.tx = tx;
    this.insertJournal =
        "INSERT INTO "
            + journal
            + " (event_id, attempt_id, store_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, event_version, destination, tag, message_key, business_key, payload,"
            + " payload_hash, content_type, headers, status, retry_count, next_retry_at,"
            + " checkback_count, created_at, updated_at, publish_mode, message_group)"
            + " VALUES (?, ?, '"
            + storeId
            + "', 'Payment', ?, 1, 'PaymentSucceeded', 1, ?, NULL, ?, ?, ?, ?, NULL, NULL,"
            + " 'PENDING', 0, ?, 0, ?, ?, 'HALF_MESSAGE', NULL)";
    this.findJournal = "SELECT COUNT(*) FROM " + journal + " WHERE event_id = ?";
  }

  /** {@code arg} is the {@link SpringBenchApp.Send} of this message. */
  @Override
  public RocketMQLocalTransactionState executeLocalTransaction(Message msg, Object arg) {
    SpringBenchApp.Send send = (SpringBenchApp.Send) arg;
    String id = send.id();
    byte[] payload = send.body().getBytes(StandardCharsets.UTF_8);
    try {
      tx.executeWithoutResult(
          s -> {
            jdbc.update("INSERT INTO payment (id, amount) VALUES (?, ?)", id, 100);
            long now = System.currentTimeMillis();
            jdbc.update(
                insertJournal,
                id,
                UUID.randomUUID().toString(),
                id,
                send.topic(),
                id,
                "order-" + id,
                payload,
                sha256(payload),
                new Timestamp(now + REPUBLISH_AFTER_MS),
                new Timestamp(now),
                new Timestamp(now));
          });
    } catch (RuntimeException e) {
      return RocketMQLocalTransactionState.ROLLBACK;
    }
    if (SpringBenchApp.e2e != null) {
      SpringBenchApp.COMMITTED_AT.put(id, System.nanoTime());
    }
    return RocketMQLocalTransactionState.COMMIT;
  }

  @Override
  public RocketMQLocalTransactionState checkLocalTransaction(Message msg) {
    CHECKBACKS.incrementAndGet();
    Object id = msg.getHeaders().get("eid");
    if (id == null) {
      return RocketMQLocalTransactionState.UNKNOWN;
    }
    Integer n = jdbc.queryForObject(findJournal, Integer.class, id.toString());
    return n != null && n > 0
        ? RocketMQLocalTransactionState.COMMIT
        : RocketMQLocalTransactionState.UNKNOWN;
  }

  private static String sha256(byte[] payload) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(payload));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
