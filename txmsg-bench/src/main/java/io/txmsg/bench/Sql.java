package io.txmsg.bench;

import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Dialect bits for bulk fills and size queries. */
final class Sql {
  private final TestDatabase kind;

  Sql(TestDatabase kind) {
    this.kind = kind;
  }

  /** A row source of n = from..to (column {@code n}). */
  String series(long from, long to) {
    return switch (kind) {
      case H2 -> "(SELECT X AS n FROM SYSTEM_RANGE(" + from + ", " + to + "))";
      case POSTGRESQL -> "(SELECT g AS n FROM generate_series(" + from + ", " + to + ") g)";
      case MARIADB -> "(SELECT seq AS n FROM seq_" + from + "_to_" + to + ")";
    };
  }

  /** Now (millisecond precision) minus whole days. */
  String daysAgo(int days) {
    return switch (kind) {
      case H2 -> "DATEADD('DAY', -" + days + ", LOCALTIMESTAMP(3))";
      case POSTGRESQL -> "(LOCALTIMESTAMP(3) - INTERVAL '" + days + " days')";
      case MARIADB -> "(NOW(3) - INTERVAL " + days + " DAY)";
    };
  }

  String now() {
    return kind == TestDatabase.MARIADB ? "NOW(3)" : "LOCALTIMESTAMP(3)";
  }

  String bytes(byte[] b) {
    StringBuilder hex = new StringBuilder();
    for (byte x : b) {
      hex.append(String.format("%02x", x));
    }
    return kind == TestDatabase.POSTGRESQL ? "decode('" + hex + "', 'hex')" : "X'" + hex + "'";
  }

  /** Journal rows e{n} / a{n} for the series, with the given status and times. */
  String journalFill(
      String prefix,
      long from,
      long to,
      String status,
      String topic,
      byte[] payload,
      String nextRetryAt,
      String createdAt) {
    return journalFill(
        "txmsg_", "bench", prefix, from, to, status, topic, payload, nextRetryAt, createdAt);
  }

  /**
   * The same into the journal of another table prefix and store: a producer's confirm group only
   * marks rows of its own store id SENT.
   */
  String journalFill(
      String tablePrefix,
      String storeId,
      String prefix,
      long from,
      long to,
      String status,
      String topic,
      byte[] payload,
      String nextRetryAt,
      String createdAt) {
    String id = "CONCAT('" + prefix + "e', n)";
    String attempt = "CONCAT('" + prefix + "a', n)";
    return "INSERT INTO "
        + tablePrefix
        + "journal (event_id, attempt_id, store_id, aggregate_type, aggregate_id,"
        + " aggregate_version, event_type, event_version, destination, message_key, business_key,"
        + " payload, payload_hash, status, retry_count, next_retry_at, checkback_count, created_at,"
        + " sent_at, updated_at) SELECT "
        + id
        + ", "
        + attempt
        + ", '"
        + storeId
        + "', 'Payment', CONCAT('"
        + prefix
        + "p', n), 1, 'PaymentSucceeded', 1, '"
        + topic
        + "', "
        + id
        + ", CONCAT('order-"
        + prefix
        + "', n), "
        + bytes(payload)
        + ", '"
        + "0".repeat(64)
        + "', '"
        + status
        + "', 0, "
        + nextRetryAt
        + ", 0, "
        + createdAt
        + ", "
        + ("SENT".equals(status) ? createdAt : "NULL")
        + ", "
        + createdAt
        + " FROM "
        + series(from, to)
        + " s";
  }

  String attemptFill(String prefix, long from, long to, String createdAt) {
    return "INSERT INTO txmsg_attempt (attempt_id, event_id, store_id, state, created_at) SELECT"
        + " CONCAT('"
        + prefix
        + "a', n), CONCAT('"
        + prefix
        + "e', n), 'bench', 'COMMITTED', "
        + createdAt
        + " FROM "
        + series(from, to)
        + " s";
  }

  String consumeLogFill(String prefix, long from, long to, String at) {
    return "INSERT INTO txmsg_consume_log (consumer_group, event_id, event_type, request_hash,"
        + " status, attempt, first_received_at, updated_at) SELECT 'archive-bench', CONCAT('"
        + prefix
        + "e', n), 'PaymentSucceeded', '"
        + "0".repeat(64)
        + "', 'SUCCESS', 1, "
        + at
        + ", "
        + at
        + " FROM "
        + series(from, to)
        + " s";
  }

  /**
   * Bytes a table takes (data + indexes): PostgreSQL pg_total_relation_size; MariaDB
   * information_schema after ANALYZE; H2 DISK_SPACE_USED (MVStore pages, an estimate).
   */
  long tableBytes(Connection c, String table) throws SQLException {
    switch (kind) {
      case POSTGRESQL:
        return queryLong(c, "SELECT pg_total_relation_size('" + table + "')");
      case MARIADB:
        try (Statement s = c.createStatement()) {
          s.execute("ANALYZE TABLE " + table);
        }
        return queryLong(
            c,
            "SELECT data_length + index_length FROM information_schema.tables"
                + " WHERE table_schema = DATABASE() AND table_name = '"
                + table
                + "'");
      default:
        {
          // In memory DISK_SPACE_USED is 0: estimate the data from the stored values' lengths.
          List<String> cols = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = '"
                          + table.toUpperCase()
                          + "' AND TABLE_SCHEMA = SCHEMA()")) {
            while (rs.next()) {
              String type = rs.getString(2).toUpperCase();
              cols.add(
                  type.contains("CHAR") || type.contains("BINARY") || type.contains("LOB")
                      ? "COALESCE(OCTET_LENGTH(" + rs.getString(1) + "), 0)"
                      : "8"); // numbers and timestamps: 8 bytes
            }
          }
          return queryLong(
              c, "SELECT COALESCE(SUM(" + String.join(" + ", cols) + "), 0) FROM " + table);
        }
    }
  }

  static long queryLong(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return queryLong(c, sql);
    }
  }

  /** Executes one statement and commits it (the pool may hand out connections in a transaction). */
  static void exec(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  /** Executes an INSERT in its own transaction; returns rows. */
  static int update(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        int n = ps.executeUpdate();
        c.commit();
        return n;
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** The business table every variant writes one row to. */
  String paymentTable() {
    return "CREATE TABLE payment (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)";
  }

  /**
   * The hand-written journal of baseline (b), with what a careful user needs: the event id as
   * primary key (the check-back reads the row by it, duplicates are refused), the topic and payload
   * (a republisher must be able to send the message again without the business tables), a status
   * and a creation time, plus {@link #rawJournalIndex()} for the republisher's scan.
   */
  String rawJournalTable() {
    return "CREATE TABLE raw_journal (event_id VARCHAR(64) PRIMARY KEY, topic VARCHAR(127) NOT NULL,"
        + " payload VARCHAR(2000) NOT NULL, status VARCHAR(16) NOT NULL, created_at "
        + (kind == TestDatabase.MARIADB ? "DATETIME(3)" : "TIMESTAMP(3)")
        + " NOT NULL)";
  }

  /** The republisher's index: rows of a status older than a cutoff, oldest first. */
  String rawJournalIndex() {
    return "CREATE INDEX raw_journal_status_created ON raw_journal (status, created_at)";
  }

  /**
   * The journal of the hand-written baselines with a SENT update, (b+) and (br+), and of
   * rocketmq-spring (c): txmsg's journal as its schema creates it (the columns, types, defaults and
   * the five indexes of {@code txmsg_journal}), so each of these baselines writes a row like
   * txmsg's. A copy, not txmsg's own DDL: the baseline must stay what it is when txmsg's journal
   * changes, or a cheaper journal would show no gain against it.
   */
  String handJournalTable() {
    String ts = kind == TestDatabase.MARIADB ? "DATETIME(3)" : "TIMESTAMP(3)";
    String now = kind == TestDatabase.MARIADB ? "NOW(3)" : "LOCALTIMESTAMP(3)";
    String bytes =
        switch (kind) {
          case H2 -> "VARBINARY";
          case POSTGRESQL -> "BYTEA";
          case MARIADB -> "LONGBLOB";
        };
    String text = kind == TestDatabase.H2 ? "CHARACTER LARGE OBJECT" : "TEXT";
    return "CREATE TABLE "
        + HandJournal.TABLE
        + " (event_id VARCHAR(64) NOT NULL, attempt_id VARCHAR(64) NOT NULL,"
        + " store_id VARCHAR(64) NOT NULL, aggregate_type VARCHAR(64) NOT NULL,"
        + " aggregate_id VARCHAR(128) NOT NULL, aggregate_version BIGINT NOT NULL,"
        + " event_type VARCHAR(64) NOT NULL, event_version INT NOT NULL,"
        + " destination VARCHAR(127) NOT NULL, tag VARCHAR(128), message_key VARCHAR(128),"
        + " business_key VARCHAR(128), payload "
        + bytes
        + " NOT NULL, payload_hash CHAR(64) NOT NULL, content_type VARCHAR(64), headers "
        + text
        + ", status VARCHAR(16) NOT NULL, owner_token VARCHAR(64), lease_until "
        + ts
        + ", retry_count INT NOT NULL DEFAULT 0, next_retry_at "
        + ts
        + " NOT NULL, checkback_count INT NOT NULL DEFAULT 0, last_checkback_at "
        + ts
        + ", broker_message_id VARCHAR(128), last_error_code VARCHAR(64),"
        + " last_error_message VARCHAR(1000), created_at "
        + ts
        + " NOT NULL DEFAULT "
        + now
        + ", sent_at "
        + ts
        + ", updated_at "
        + ts
        + " NOT NULL DEFAULT "
        + now
        + ", publish_mode VARCHAR(16) NOT NULL DEFAULT 'HALF_MESSAGE',"
        + " message_group VARCHAR(128), CONSTRAINT "
        + HandJournal.TABLE
        + "_pk PRIMARY KEY (event_id))";
  }

  /** The indexes of {@link #handJournalTable()}: those of txmsg's journal, one statement each. */
  List<String> handJournalIndexes() {
    String t = HandJournal.TABLE;
    return List.of(
        "CREATE INDEX " + t + "_due_ix ON " + t + " (status, next_retry_at)",
        "CREATE INDEX "
            + t
            + "_aggregate_ix ON "
            + t
            + " (aggregate_type, aggregate_id, aggregate_version)",
        "CREATE INDEX " + t + "_business_key_ix ON " + t + " (business_key)",
        "CREATE INDEX " + t + "_created_ix ON " + t + " (created_at)");
  }

  /**
   * The hand-written outbox of baselines (ho) and (hor) ({@link HandWrittenOutbox}), with what a
   * careful user needs: the event id as primary key (the send and the SENT update find the row by
   * it, duplicates are refused), the topic and payload (its relay must be able to send the message
   * without the business tables), a status (PENDING, then SENT after the broker's SEND_OK) and a
   * creation time, plus {@link #rawOutboxIndex()} for the relay. No attempt or owner columns: a
   * hand-written relay of one instance does not need a lease.
   */
  String rawOutboxTable() {
    return "CREATE TABLE raw_outbox (id VARCHAR(64) PRIMARY KEY, topic VARCHAR(127) NOT NULL,"
        + " payload VARCHAR(2000) NOT NULL, status VARCHAR(16) NOT NULL, created_at "
        + (kind == TestDatabase.MARIADB ? "DATETIME(3)" : "TIMESTAMP(3)")
        + " NOT NULL)";
  }

  /**
   * The relay's index: {@code WHERE status = 'PENDING' AND created_at < ? ORDER BY created_at}. The
   * relay does not run in the benchmark (see {@link HandWrittenOutbox}), but the index is
   * maintained on every insert and every SENT update, as it would be in production.
   */
  String rawOutboxIndex() {
    return "CREATE INDEX raw_outbox_status_created ON raw_outbox (status, created_at)";
  }

  String creditTable() {
    return "CREATE TABLE credit (consumer_group VARCHAR(64) NOT NULL, event_id VARCHAR(64) NOT NULL,"
        + " account VARCHAR(64) NOT NULL, amount INT NOT NULL)";
  }
}
