package io.txmsg.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.DatabaseIndependent;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code cdc status|reset} on PostgreSQL and MariaDB (the relay's state written as the relay writes
 * it), and the archiver's rule for CDC rows: only SENT ones move.
 */
class CdcCommandTest {
  private static final Duration OLD = Duration.ofDays(30);

  @TempDir Path dir;

  static Stream<TestDatabase> logDatabases() {
    return TestDatabases.list().stream().filter(d -> d != TestDatabase.H2);
  }

  private static String store() {
    return "cdc-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** A lease row (live for {@code leaseSeconds}, negative: expired) and an offset row. */
  private static void relayState(OpsRows rows, String storeId, long leaseSeconds) throws Exception {
    String until = rows.ago(Duration.ofSeconds(-leaseSeconds));
    rows.execute(
        "INSERT INTO txmsg_cdc_relay (store_id, owner_token, generation, lease_until, owner_info,"
            + " acquired_at, renewed_at) VALUES (?, 'tok-1', 7, "
            + until
            + ", 'host-a pid=42', "
            + rows.ago(Duration.ZERO)
            + ", "
            + rows.ago(Duration.ZERO)
            + ")",
        storeId);
    rows.execute(
        "INSERT INTO txmsg_cdc_offset (store_id, offsets, generation, updated_at) VALUES (?,"
            + " '{\"lsn\":123}', 7, "
            + rows.ago(Duration.ZERO)
            + ")",
        storeId);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void statusShowsTheLeaseOffsetAndTheUnsentCdcRowsOfTheStore(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      String storeId = store();
      relayState(rows, storeId, 60);
      rows.cdcJournal("cdc-old", "PENDING", storeId, Duration.ofMinutes(10));
      rows.cdcJournal("cdc-young", "RETRY", storeId, Duration.ofSeconds(1));
      rows.cdcJournal("cdc-sent", "SENT", storeId, Duration.ofHours(1));
      rows.cdcJournal("cdc-other-store", "PENDING", "other", Duration.ofHours(2));
      rows.journal("outbox-row", "PENDING", "payment", "Paid", null, Duration.ofHours(3));
      Cli cli = new Cli(db, dir);

      Cli.Run run = cli.run("cdc", "status", "--store", storeId, "--json");
      assertThat(run.exitCode()).as(run.err()).isZero();
      JsonNode doc = run.json();
      assertThat(doc.get("owner").asText()).isEqualTo("host-a pid=42");
      assertThat(doc.get("generation").asLong()).isEqualTo(7);
      assertThat(doc.get("lease_live").asBoolean()).isTrue();
      assertThat(doc.get("stored_offset").asText()).isEqualTo("{\"lsn\":123}");
      assertThat(doc.get("pending_cdc_rows").asLong())
          .as("PENDING and RETRY of this store")
          .isEqualTo(2);
      assertThat(doc.get("oldest_pending_age_seconds").asDouble())
          .isBetween(590.0, 3600.0); // the 10-minute-old row, not the other store's
      if (kind == TestDatabase.POSTGRESQL) {
        assertThat(doc.get("slot").asText()).isEqualTo("txmsg_relay_" + storeId.replace('-', '_'));
        assertThat(doc.get("slot_exists").asBoolean()).isFalse();
      } else {
        assertThat(doc.has("slot")).isFalse();
      }

      Cli.Run late = cli.run("cdc", "status", "--store", storeId, "--max-oldest-seconds", "60");
      assertThat(late.exitCode()).as("the oldest unsent row is older than 60 s").isEqualTo(1);
      assertThat(late.out()).contains("pending_cdc_rows", "host-a pid=42");
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void resetNeedsYesIsRefusedUnderALiveLeaseAndOtherwiseDropsTheStoredPosition(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      String storeId = store();
      relayState(rows, storeId, 60);
      rows.execute(
          "INSERT INTO txmsg_cdc_schema_history (store_id, seq, record, generation) VALUES (?, 1,"
              + " '{}', 7)",
          storeId);
      rows.cdcJournal("cdc-unsent", "PENDING", storeId, Duration.ofMinutes(1));
      Cli cli = new Cli(db, dir);
      String offsets = "SELECT store_id FROM txmsg_cdc_offset WHERE store_id = '" + storeId + "'";

      Cli.Run unconfirmed = cli.run("cdc", "reset", "--store", storeId);
      assertThat(unconfirmed.exitCode()).isEqualTo(2);
      assertThat(unconfirmed.err()).contains("--yes", "reconciler");

      Cli.Run leased = cli.run("cdc", "reset", "--store", storeId, "--yes");
      assertThat(leased.exitCode()).isEqualTo(1);
      assertThat(leased.err()).contains("holds a live lease", "nothing was changed");
      assertThat(rows.column(offsets)).containsExactly(storeId);

      String slot = "txmsg_relay_" + storeId.replace('-', '_');
      if (kind == TestDatabase.POSTGRESQL) {
        createSlot(db, slot);
      }
      try {
        rows.execute(
            "UPDATE txmsg_cdc_relay SET lease_until = "
                + rows.ago(Duration.ofSeconds(5))
                + " WHERE store_id = ?",
            storeId);
        Cli.Run reset = cli.run("cdc", "reset", "--store", storeId, "--yes", "--json");
        assertThat(reset.exitCode()).as(reset.err()).isZero();
        JsonNode doc = reset.json();
        assertThat(doc.get("offset_rows_deleted").asInt()).isEqualTo(1);
        assertThat(doc.get("history_rows_deleted").asInt()).isEqualTo(1);
        assertThat(doc.get("pending_cdc_rows").asLong()).isEqualTo(1);
        assertThat(doc.get("note").asText()).contains("reconciler");
        assertThat(rows.column(offsets)).isEmpty();
        // The unsent row is left for the reconciler, untouched.
        assertThat(rows.column("SELECT status FROM txmsg_journal WHERE event_id = 'cdc-unsent'"))
            .containsExactly("PENDING");
        if (kind == TestDatabase.POSTGRESQL) {
          assertThat(doc.get("slot_dropped").asBoolean()).isTrue();
          assertThat(slotExists(db, slot)).isFalse();
        }
      } finally {
        if (kind == TestDatabase.POSTGRESQL && slotExists(db, slot)) {
          try (Connection c = db.dataSource().getConnection();
              Statement s = c.createStatement()) {
            s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
          }
        }
      }
    }
  }

  static Stream<TestDatabase> postgresql() {
    return TestDatabases.list().stream().filter(d -> d == TestDatabase.POSTGRESQL);
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("postgresql")
  void statusReportsTheSlotLagInBytesOnPostgresql(TestDatabase kind) throws Exception {
    try (DatabaseFixture db = kind.open()) {
      new OpsRows(db.dataSource());
      String storeId = store();
      String slot = "txmsg_relay_" + storeId.replace('-', '_');
      createSlot(db, slot);
      try {
        // WAL written after the slot was created: the slot retains it, unconfirmed.
        try (Connection c = db.dataSource().getConnection();
            Statement s = c.createStatement()) {
          s.execute("CREATE TABLE cdc_lag_filler (x TEXT)");
          s.execute(
              "INSERT INTO cdc_lag_filler SELECT repeat('x', 1000) FROM generate_series(1, 200)");
          if (!c.getAutoCommit()) {
            c.commit();
          }
        }
        Cli.Run run = new Cli(db, dir).run("cdc", "status", "--store", storeId, "--json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode doc = run.json();
        assertThat(doc.get("slot_exists").asBoolean()).isTrue();
        assertThat(doc.get("slot_active").asBoolean()).isFalse();
        assertThat(doc.get("slot_unconfirmed_bytes").asLong()).isGreaterThan(100_000L);
        assertThat(doc.get("slot_retained_bytes").asLong())
            .isGreaterThanOrEqualTo(doc.get("slot_unconfirmed_bytes").asLong());
      } finally {
        try (Connection c = db.dataSource().getConnection();
            Statement s = c.createStatement()) {
          s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
        }
      }
    }
  }

  @ParameterizedTest(allowZeroInvocations = true)
  @MethodSource("logDatabases")
  void theArchiverMovesOnlySentCdcRowsNeverOnesTheRelayHasNotSent(TestDatabase kind)
      throws Exception {
    try (DatabaseFixture db = kind.open()) {
      OpsRows rows = new OpsRows(db.dataSource());
      String storeId = store();
      for (String status : List.of("PENDING", "SENDING", "RETRY", "DEAD", "SENT")) {
        rows.cdcJournal("cdc-" + status.toLowerCase(), status, storeId, OLD);
      }
      Cli.Run run =
          new Cli(db, dir)
              .run(
                  "archive",
                  "--reason",
                  "cdc test",
                  "--tables",
                  "journal",
                  "--journal-retention",
                  "1d");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(rows.column("SELECT event_id FROM txmsg_journal ORDER BY event_id"))
          .containsExactly("cdc-dead", "cdc-pending", "cdc-retry", "cdc-sending");
      assertThat(rows.column("SELECT event_id FROM txmsg_journal_archive ORDER BY event_id"))
          .containsExactly("cdc-sent");
    }
  }

  @Test
  @DatabaseIndependent
  void onH2StatusSaysThereIsNoRelay() throws Exception {
    try (DatabaseFixture db = TestDatabase.H2.open()) {
      new OpsRows(db.dataSource());
      Cli.Run run = new Cli(db, dir).run("cdc", "status", "--store", "s1");
      assertThat(run.exitCode()).isEqualTo(2);
      assertThat(run.err()).contains("H2", "no change log");
    }
  }

  private static void createSlot(DatabaseFixture db, String slot) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(true);
      s.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      c.setAutoCommit(auto);
    }
  }

  private static boolean slotExists(DatabaseFixture db, String slot) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
      rs.next();
      return rs.getInt(1) == 1;
    }
  }
}
