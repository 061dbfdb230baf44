package io.txmsg.cdc;

import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.PublicationRow;
import io.txmsg.store.cdc.SlotCapacity;
import io.txmsg.store.cdc.SlotRow;
import io.txmsg.store.tx.SqlStates;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: logical decoding with pgoutput, through a publication on the journal table alone that
 * publishes inserts only, and one replication slot per store.
 */
final class PostgresLog extends LogSource {
  private static final Logger log = LoggerFactory.getLogger(PostgresLog.class);

  @Override
  String jdbcScheme() {
    return "postgresql";
  }

  @Override
  void check(RelayConfig c) throws Exception {
    String database =
        onSource(
            c,
            m -> {
              String wal = m.walLevel();
              if (!"logical".equals(wal)) {
                throw new CdcSetupException(
                    "PostgreSQL wal_level is '"
                        + wal
                        + "'; the CDC relay needs 'logical': run ALTER SYSTEM SET wal_level ="
                        + " logical; and restart the server");
              }
              if (!Boolean.TRUE.equals(m.canReplicate())) {
                throw new CdcSetupException(
                    "role "
                        + c.source().user()
                        + " may not open a replication connection: run ALTER ROLE "
                        + c.source().user()
                        + " REPLICATION;");
              }
              SlotRow slot = m.selectSlot(c.slotName());
              if (slot == null) {
                SlotCapacity cap = m.slotCapacity();
                if (cap.getUsed() >= cap.getMax()) {
                  throw new CdcSetupException(
                      "all "
                          + cap.getMax()
                          + " replication slots (max_replication_slots) are in use and the relay"
                          + " needs slot "
                          + c.slotName()
                          + ": drop an unused slot (SELECT pg_drop_replication_slot('<name>'))"
                          + " or raise max_replication_slots and restart the server");
                }
              } else if (!"pgoutput".equals(slot.getPlugin())) {
                throw new CdcSetupException(
                    "replication slot "
                        + c.slotName()
                        + " exists with plugin "
                        + slot.getPlugin()
                        + ", not pgoutput: drop it (SELECT pg_drop_replication_slot('"
                        + c.slotName()
                        + "')) or set CdcRelaySettings.withSlotName");
              }
              return m.currentDatabase();
            });
    if (!database.equals(c.source().database())) {
      throw new CdcSetupException(
          "the CDC source reads database "
              + c.source().database()
              + " but the journal is in database "
              + database);
    }
    checkPublication(c);
  }

  /** The publication exists (or is created) on the journal table alone, for inserts only. */
  private void checkPublication(RelayConfig c) throws Exception {
    CdcRelayStore store = c.relayStore();
    String name = c.publicationName();
    String create =
        CdcRelayStore.createPublicationStatement(name, c.schema(), c.journalTable()) + ";";
    PublicationRow pub = store.run(m -> m.selectPublication(name));
    if (pub == null) {
      if (!c.settings().createPublication()) {
        throw new CdcSetupException(
            "publication " + name + " does not exist: run " + create + " (as the table owner)");
      }
      try {
        store.createPublication(name, c.schema(), c.journalTable());
        log.info("cdc created publication {}: {}", name, create);
      } catch (Exception e) {
        SQLException sql = SqlStates.find(e);
        if (sql == null || !"42710".equals(sql.getSQLState())) { // 42710: created meanwhile
          throw new CdcSetupException(
              "publication "
                  + name
                  + " does not exist and the relay could not create it ("
                  + (sql == null ? e.toString() : sql.getMessage())
                  + "): run "
                  + create
                  + " (as the table owner)",
              e);
        }
      }
      pub = store.run(m -> m.selectPublication(name));
    }
    String table = c.schema() + "." + c.journalTable();
    List<String> tables = store.run(m -> m.publicationTables(name));
    if (pub.isPuballtables() || !tables.equals(List.of(table))) {
      throw new CdcSetupException(
          "publication "
              + name
              + " covers "
              + (pub.isPuballtables() ? "all tables" : tables)
              + ", not the journal alone: run ALTER PUBLICATION "
              + name
              + " SET TABLE "
              + table
              + "; (or name another publication: CdcRelaySettings.withPublication)");
    }
    if (!pub.insertsOnly()) {
      throw new CdcSetupException(
          "publication "
              + name
              + " publishes more than inserts: run ALTER PUBLICATION "
              + name
              + " SET (publish = 'insert');");
    }
  }

  @Override
  void prepare(RelayConfig c, RelayRun run, KeepAlive keepAlive) throws Exception {
    CdcRelayStore store = run.store();
    String slotName = c.slotName();
    SlotRow slot = store.run(m -> m.selectSlot(slotName));
    String offsets = store.offsets(c.storeId());
    if (slot != null && slot.isLost()) {
      cannotResume(
          c,
          run,
          "replication slot "
              + slotName
              + " was invalidated (wal_status lost: the server removed WAL it still needed,"
              + " max_slot_wal_keep_size)");
      freeSlot(c, run, keepAlive);
      store.run(
          m -> {
            m.dropSlot(slotName);
            return null;
          });
      return;
    }
    if (slot == null) {
      if (offsets != null) {
        cannotResume(
            c,
            run,
            "replication slot "
                + slotName
                + " does not exist (dropped, or not carried over by a failover)");
      }
      return;
    }
    freeSlot(c, run, keepAlive);
  }

  /**
   * Waits until no walsender reads the slot. A slot has one reader: a former holder that stalled
   * keeps it until the server drops its connection after wal_sender_timeout; with {@code
   * terminateStaleReader} it is terminated at once (this instance holds the lease, so that holder's
   * lease has expired).
   */
  private void freeSlot(RelayConfig c, RelayRun run, KeepAlive keepAlive) throws Exception {
    CdcRelayStore store = run.store();
    long lastRenewal = System.nanoTime();
    boolean terminated = false;
    while (true) {
      SlotRow slot = store.run(m -> m.selectSlot(c.slotName()));
      if (slot == null || !slot.isActive() || slot.getActivePid() == null) {
        return;
      }
      if (c.settings().terminateStaleReader() && !terminated) {
        int pid = slot.getActivePid();
        try {
          store.run(m -> m.terminateBackend(pid));
          log.warn(
              "cdc slot {} was still read by backend pid={} of a former relay: terminated",
              c.slotName(),
              pid);
        } catch (Exception e) {
          log.warn(
              "cdc slot {} is read by backend pid={} and it cannot be terminated ({}); waiting"
                  + " for wal_sender_timeout",
              c.slotName(),
              pid,
              e.toString());
        }
        terminated = true;
      }
      if (System.nanoTime() - lastRenewal > c.settings().renewInterval().toNanos()) {
        if (!keepAlive.renew()) {
          throw new RelayStoppedException(run.stopReason());
        }
        lastRenewal = System.nanoTime();
      }
      run.pause(200);
    }
  }

  private static void cannotResume(RelayConfig c, RelayRun run, String reason) throws Exception {
    log.error(
        "cdc cannot resume storeId={}: {}; restarting at the current position (rows committed"
            + " meanwhile are sent by the reconciler's fallback)",
        c.storeId(),
        reason);
    if (!run.store().writeOffsets(run.fence(), null)) {
      run.lost("offset reset fenced");
      throw new RelayStoppedException(run.stopReason());
    }
    c.notifyCannotResume(reason);
  }

  @Override
  void configure(RelayConfig c, Properties p) {
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("database.dbname", c.source().database());
    p.setProperty("slot.name", c.slotName());
    p.setProperty("slot.drop.on.stop", "false");
    p.setProperty("publication.name", c.publicationName());
    // Created and checked at start (inserts of the journal only); Debezium's own creation would
    // publish every operation.
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("table.include.list", literal(c.schema()) + "\\." + literal(c.journalTable()));
    // The slot's confirmed position moves with the relay's offsets, and also, while every received
    // change is confirmed, with the server's keepalives: a quiet journal in a busy database would
    // otherwise keep the other tables' WAL on disk.
    p.setProperty("lsn.flush.mode", "connector_and_driver");
    // Which is why, after a crash or between two heartbeats, the slot can be ahead of the stored
    // offset; the connector's default (no_validation) then refuses at every start ("no longer
    // available on the server") and the relay never resumes. The driver confirms a keepalive only
    // once every change it received was confirmed, so the WAL between the two holds no journal
    // insert left unsent; were one there, the reconciler's per-row fallback would send it.
    p.setProperty("offset.mismatch.strategy", "trust_slot");
  }
}
