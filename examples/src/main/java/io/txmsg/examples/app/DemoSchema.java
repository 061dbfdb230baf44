package io.txmsg.examples.app;

import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application's own tables (portable DDL: H2, MySQL/MariaDB, PostgreSQL). The txmsg tables are
 * created by the framework ({@code autoCreateSchema(true)}).
 */
public final class DemoSchema {
  static final List<String> TABLES =
      List.of(
          "payment",
          "payment_checkback_audit",
          "points_ledger",
          "sms_notification",
          "order_projection",
          "order_projection_history");

  private static final List<String> DDL =
      List.of(
          "CREATE TABLE IF NOT EXISTS payment (order_id VARCHAR(64) NOT NULL PRIMARY KEY,"
              + " event_id VARCHAR(64) NOT NULL, attempt_id VARCHAR(64) NOT NULL,"
              + " customer_id VARCHAR(64) NOT NULL, amount_cents BIGINT NOT NULL,"
              + " status VARCHAR(16) NOT NULL, version BIGINT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS payment_checkback_audit (event_id VARCHAR(64),"
              + " attempt_id VARCHAR(64), check_times INT, resolution VARCHAR(16) NOT NULL,"
              + " answered_by VARCHAR(16) NOT NULL, answered_at BIGINT NOT NULL)",
          // No unique key on purpose: a second credit of one event would show up here.
          "CREATE TABLE IF NOT EXISTS points_ledger (event_id VARCHAR(64) NOT NULL,"
              + " order_id VARCHAR(64) NOT NULL, customer_id VARCHAR(64) NOT NULL,"
              + " points BIGINT NOT NULL, latency_ms BIGINT, applied_at BIGINT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS sms_notification (event_id VARCHAR(64) NOT NULL,"
              + " order_id VARCHAR(64) NOT NULL, phone VARCHAR(32) NOT NULL,"
              + " idempotency_key VARCHAR(200) NOT NULL, latency_ms BIGINT,"
              + " applied_at BIGINT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS order_projection (order_id VARCHAR(64) NOT NULL PRIMARY KEY,"
              + " status VARCHAR(32) NOT NULL, version BIGINT NOT NULL,"
              + " last_event_id VARCHAR(64) NOT NULL)",
          "CREATE TABLE IF NOT EXISTS order_projection_history (event_id VARCHAR(64) NOT NULL,"
              + " order_id VARCHAR(64) NOT NULL, status VARCHAR(32) NOT NULL,"
              + " version BIGINT NOT NULL, latency_ms BIGINT, applied_at BIGINT NOT NULL)");

  private static final List<String> TXMSG_TABLES =
      List.of(
          "txmsg_journal",
          "txmsg_attempt",
          "txmsg_consume_log",
          "txmsg_aggregate_version",
          "txmsg_dead_letter",
          "txmsg_command",
          "txmsg_replay_audit");

  private DemoSchema() {}

  /** Creates the application's tables when missing. */
  public static void create(JdbcTemplate jdbc) {
    DDL.forEach(jdbc::execute);
  }

  /** Rows in the demo's and txmsg's tables (0 for a fresh database). */
  public static long rows(JdbcTemplate jdbc) {
    long n = 0;
    for (String t : concat()) {
      try {
        n += jdbc.queryForObject("SELECT COUNT(*) FROM " + t, Long.class);
      } catch (RuntimeException missing) {
        // not created yet
      }
    }
    return n;
  }

  /** Deletes every row of the demo's and txmsg's tables ({@code --reset}). */
  public static void reset(JdbcTemplate jdbc) {
    for (String t : concat()) {
      try {
        jdbc.update("DELETE FROM " + t);
      } catch (RuntimeException missing) {
        // not created yet
      }
    }
  }

  private static List<String> concat() {
    return java.util.stream.Stream.concat(TABLES.stream(), TXMSG_TABLES.stream()).toList();
  }
}
