package io.txmsg.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.store.cdc.BinlogSettings;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.tx.SqlStates;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MariaDB (and MySQL's binlog, which the MariaDB connector does not read: MariaDB only here): the
 * row-based binlog, read as a replica with a server id of this instance's own; the connector's
 * schema history in the txmsg database.
 */
final class MariaDbLog extends LogSource {
  private static final Logger log = LoggerFactory.getLogger(MariaDbLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** ER_SPECIFIC_ACCESS_DENIED_ERROR: "you need (at least one of) the ... privilege(s)". */
  private static final int ACCESS_DENIED = 1227;

  @Override
  String jdbcScheme() {
    return "mariadb";
  }

  @Override
  void check(RelayConfig c) throws Exception {
    String account = "'" + c.source().user() + "'@'<host>'";
    String database =
        onSource(
            c,
            m -> {
              BinlogSettings s = m.binlogSettings();
              if (!s.binlogOn()) {
                throw new CdcSetupException(
                    "the binary log is off (log_bin): start the server with log_bin (e.g."
                        + " --log-bin), a server_id, binlog_format=ROW and binlog_row_image=FULL");
              }
              if (!"ROW".equalsIgnoreCase(s.getBinlogFormat())) {
                throw new CdcSetupException(
                    "binlog_format is "
                        + s.getBinlogFormat()
                        + "; the CDC relay needs ROW: SET GLOBAL binlog_format = 'ROW'; and set"
                        + " binlog_format=ROW in the server's configuration (sessions opened"
                        + " before keep their format)");
              }
              if (!"FULL".equalsIgnoreCase(s.getBinlogRowImage())) {
                throw new CdcSetupException(
                    "binlog_row_image is "
                        + s.getBinlogRowImage()
                        + "; the CDC relay needs FULL: SET GLOBAL binlog_row_image = 'FULL'; and"
                        + " set binlog_row_image=FULL in the server's configuration");
              }
              if (s.getServerId() == 0) {
                throw new CdcSetupException(
                    "the server's server_id is 0: set server_id (any id no replica uses) in the"
                        + " server's configuration");
              }
              if (s.getServerId() == c.serverId()) {
                throw new CdcSetupException(
                    "cdc.serverId "
                        + c.serverId()
                        + " is the server's own server_id: give the relay another"
                        + " (CdcRelaySettings.withServerId, or 0 for a random one)");
              }
              List<String> privileges = m.globalPrivileges();
              if (!privileges.contains("REPLICATION SLAVE")
                  && !privileges.contains("REPLICATION REPLICA")) {
                throw new CdcSetupException(
                    "user "
                        + c.source().user()
                        + " may not read the binlog as a replica: run GRANT REPLICATION SLAVE ON"
                        + " *.* TO "
                        + account
                        + ";");
              }
              try {
                m.binaryLogs();
              } catch (RuntimeException e) {
                SQLException sql = SqlStates.find(e);
                if (sql != null && sql.getErrorCode() == ACCESS_DENIED) {
                  throw new CdcSetupException(
                      "user "
                          + c.source().user()
                          + " may not list the binary logs: run GRANT BINLOG MONITOR ON *.* TO "
                          + account
                          + "; (MySQL and MariaDB before 10.5: REPLICATION CLIENT)",
                      e);
                }
                throw e;
              }
              return m.currentDatabase();
            });
    if (!c.schema().equals(database)) {
      throw new CdcSetupException(
          "the CDC source reads database "
              + database
              + " but the journal is in database "
              + c.schema());
    }
  }

  @Override
  void prepare(RelayConfig c, RelayRun run, KeepAlive keepAlive) throws Exception {
    CdcRelayStore store = run.store();
    String offsets = store.offsets(c.storeId());
    boolean history = !store.history(c.storeId()).isEmpty();
    if (offsets == null) {
      if (history && !store.clearHistory(run.fence())) {
        run.lost("schema history reset fenced");
        throw new RelayStoppedException(run.stopReason());
      }
      return;
    }
    String file = binlogFile(offsets);
    if (file != null) {
      List<String> logs = onSource(c, m -> m.binaryLogs());
      if (!logs.contains(file)) {
        reset(
            c,
            run,
            "binlog file "
                + file
                + " of the stored offset was purged (the server has "
                + (logs.isEmpty() ? "none" : logs.get(0) + " to " + logs.get(logs.size() - 1))
                + ")");
        return;
      }
    }
    if (!history) {
      reset(c, run, "the schema history the stored offset needs is missing");
    }
  }

  /** The binlog file of the stored offsets (Debezium's {@code file} field), or null. */
  static String binlogFile(String offsets) throws Exception {
    JsonNode stored = JSON.readTree(offsets);
    for (JsonNode value : stored) {
      if (value.isTextual()) {
        JsonNode file = JSON.readTree(value.asText()).get("file");
        if (file != null && file.isTextual()) {
          return file.asText();
        }
      }
    }
    return null;
  }

  private static void reset(RelayConfig c, RelayRun run, String reason) throws Exception {
    log.error(
        "cdc cannot resume storeId={}: {}; restarting at the current position (rows committed"
            + " meanwhile are sent by the reconciler's fallback)",
        c.storeId(),
        reason);
    if (!run.store().writeOffsets(run.fence(), null) || !run.store().clearHistory(run.fence())) {
      run.lost("offset reset fenced");
      throw new RelayStoppedException(run.stopReason());
    }
    c.notifyCannotResume(reason);
  }

  @Override
  void configure(RelayConfig c, Properties p) {
    p.setProperty("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
    p.setProperty("database.server.id", Long.toString(c.serverId()));
    p.setProperty("database.include.list", literal(c.schema()));
    p.setProperty("table.include.list", literal(c.schema()) + "\\." + literal(c.journalTable()));
    // no_data still takes FLUSH TABLES WITH READ LOCK (a write stall, RELOAD privilege) unless
    // told not to lock: the relay reads no rows, only the table's definition.
    p.setProperty("snapshot.locking.mode", "none");
    // The binlog client notices a dropped connection (a server restart, a network reset) only
    // when its keep-alive thread next looks, and reconnects then: Debezium's default of 60 s
    // left the relay silently stalled that long after a database restart while the fallback sent
    // its rows. Every 5 s instead; the server then sends a heartbeat event every 4 s (0.8 of it)
    // so that a quiet binlog does not look dead.
    p.setProperty("connect.keep.alive.interval.ms", "5000");
    p.setProperty("include.schema.changes", "false");
    p.setProperty("schema.history.internal", TxmsgSchemaHistory.class.getName());
    p.setProperty(TxmsgSchemaHistory.CONFIG_KEY, p.getProperty(RelayRun.CONFIG_KEY));
    p.setProperty("schema.history.internal.store.only.captured.tables.ddl", "true");
    p.setProperty("schema.history.internal.store.only.captured.databases.ddl", "true");
  }
}
