package io.txmsg.cli;

import io.txmsg.store.Dialect;
import io.txmsg.store.schema.SchemaInstaller;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Test helper: writes journal, consume-log, dead-letter, replay-audit and attempt rows in the
 * shapes the producer and consumer write them, with timestamps set back by an age on the DATABASE
 * clock (the CLI's age filters and the archiver use the database clock too, so the tests do not
 * depend on the database server's time zone).
 */
final class OpsRows {
  static final String PREFIX = "txmsg_";
  static final String HASH = "a".repeat(64);

  private final DataSource dataSource;
  private final Dialect dialect;

  OpsRows(DataSource dataSource) throws SQLException {
    this.dataSource = dataSource;
    SchemaInstaller.installIfMissing(dataSource, PREFIX);
    try (Connection c = dataSource.getConnection()) {
      this.dialect = Dialect.detect(c);
    }
  }

  /** The payload every helper row carries: tests assert it is hidden by default. */
  static byte[] payload(String eventId) {
    return ("{\"secret\":\"payload-of-" + eventId + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  /** A database-clock timestamp {@code age} in the past, as SQL text. */
  String ago(Duration age) {
    long ms = age.toMillis();
    return switch (dialect) {
      case H2 -> "DATEADD(MILLISECOND, " + (-ms) + ", LOCALTIMESTAMP(3))";
      case MYSQL -> "TIMESTAMPADD(MICROSECOND, " + (-ms * 1000) + ", NOW(3))";
      case POSTGRESQL ->
          "(CAST(clock_timestamp() AS TIMESTAMP(3)) - INTERVAL '" + ms + " milliseconds')";
    };
  }

  void journal(
      String eventId,
      String status,
      String destination,
      String eventType,
      String businessKey,
      Duration age)
      throws SQLException {
    String t = ago(age);
    update(
        "INSERT INTO "
            + PREFIX
            + "journal (event_id, attempt_id, store_id, aggregate_type, aggregate_id,"
            + " aggregate_version, event_type, event_version, destination, business_key, payload,"
            + " payload_hash, headers, status, retry_count, next_retry_at, created_at, sent_at,"
            + " updated_at) VALUES (?, ?, 'store-1', 'Order', ?, 1, ?, 1, ?, ?, ?, ?, '{}', ?, ?, "
            + t
            + ", "
            + t
            + ", "
            + ("SENT".equals(status) ? t : "NULL")
            + ", "
            + t
            + ")",
        eventId,
        "att-" + eventId,
        "order-" + eventId,
        eventType,
        destination,
        businessKey,
        payload(eventId),
        HASH,
        status,
        "RETRY".equals(status) ? 2 : 0);
  }

  /**
   * Marks a journal row SENT {@code age} ago, as the confirmation does after consumers got the
   * event: its sent_at and updated_at become later than its created_at.
   */
  void markJournalSent(String eventId, Duration age) throws SQLException {
    String t = ago(age);
    update(
        "UPDATE "
            + PREFIX
            + "journal SET status = 'SENT', sent_at = "
            + t
            + ", updated_at = "
            + t
            + " WHERE event_id = ?",
        eventId);
  }

  void attempt(String attemptId, String eventId, String state, Duration age) throws SQLException {
    update(
        "INSERT INTO "
            + PREFIX
            + "attempt (attempt_id, event_id, store_id, state, created_at) VALUES (?, ?, 'store-1',"
            + " ?, "
            + ago(age)
            + ")",
        attemptId,
        eventId,
        state);
  }

  void consumeLog(String group, String eventId, String status, Duration age) throws SQLException {
    String t = ago(age);
    update(
        "INSERT INTO "
            + PREFIX
            + "consume_log (consumer_group, event_id, event_type, request_hash, status, result_ref,"
            + " attempt, first_received_at, updated_at) VALUES (?, ?, 'Paid', ?, ?, ?, 1, "
            + t
            + ", "
            + t
            + ")",
        group,
        eventId,
        HASH,
        status,
        "SUCCESS".equals(status) ? "result-" + eventId : null);
  }

  void deadLetter(
      String group,
      String eventId,
      String kind,
      String status,
      String reason,
      String eventType,
      String businessKey,
      String replayRequestId,
      Duration age)
      throws SQLException {
    String t = ago(age);
    update(
        "INSERT INTO "
            + PREFIX
            + "dead_letter (consumer_group, event_id, request_hash, kind, status, reason,"
            + " business_key, event_type, aggregate_type, aggregate_id, aggregate_version, topic,"
            + " broker_message_id, attempt, error_class, error_message, payload, headers,"
            + " origin_time, replay_request_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?,"
            + " ?, ?, 'Order', ?, 1, 'payment', 'msg-1', 5, 'java.lang.IllegalStateException',"
            + " 'boom\nsecond line', ?, '{}', "
            + t
            + ", ?, "
            + t
            + ", "
            + t
            + ")",
        group,
        eventId,
        "CONFLICT".equals(kind) ? "b".repeat(64) : HASH,
        kind,
        status,
        reason,
        businessKey,
        eventType,
        "order-" + eventId,
        payload(eventId),
        replayRequestId);
  }

  void replayAudit(String requestId, String group, String status) throws SQLException {
    update(
        "INSERT INTO "
            + PREFIX
            + "replay_audit (request_id, operator, reason, consumer_group, selector,"
            + " rate_per_second, dry_run, status, selected, succeeded, failed) VALUES (?, 'alice',"
            + " 'INC-42 fix deployed', ?, 'group=g', 10, ?, ?, 3, 1, 0)",
        requestId,
        group,
        false,
        status);
  }

  /** A journal row of the CDC delivery mode of {@code storeId}, written {@code age} ago. */
  void cdcJournal(String eventId, String status, String storeId, Duration age) throws SQLException {
    journal(eventId, status, "payment", "Paid", null, age);
    update(
        "UPDATE " + PREFIX + "journal SET publish_mode = 'CDC', store_id = ? WHERE event_id = ?",
        storeId,
        eventId);
  }

  /** Any statement, for the state a test needs (CDC lease and offset rows). */
  void execute(String sql, Object... args) throws SQLException {
    update(sql, args);
  }

  /** The first column of every row, as strings, sorted by the query's ORDER BY. */
  List<String> column(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  private void update(String sql, Object... args) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] == null) {
          ps.setNull(i + 1, Types.VARCHAR);
        } else {
          ps.setObject(i + 1, args[i]);
        }
      }
      ps.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }
}
