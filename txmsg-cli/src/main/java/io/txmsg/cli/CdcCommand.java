package io.txmsg.cli;

import io.txmsg.api.LogSafe;
import io.txmsg.store.Dialect;
import io.txmsg.store.cdc.CdcBacklog;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.RelayLeaseRow;
import io.txmsg.store.cdc.SlotLag;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code txmsg cdc status|reset}: the CDC relay of one store as the database sees it (its lease,
 * its stored offset, the CDC rows not SENT yet, the PostgreSQL slot's lag), and an operator's reset
 * of its log position.
 */
@Command(
    name = "cdc",
    description = "Inspect or reset the CDC relay of a store (lease, offset, backlog, slot).",
    subcommands = {CdcCommand.Status.class, CdcCommand.Reset.class})
final class CdcCommand extends CommandGroup {

  /** The options both subcommands share. */
  abstract static class StoreCommand extends DbCommand {
    @Option(
        names = "--store",
        required = true,
        paramLabel = "<storeId>",
        description = "The store id (the producer's and the relay's storeId).")
    String storeId;

    @Option(
        names = "--slot",
        paramLabel = "<name>",
        description =
            "PostgreSQL: the relay's replication slot, when its settings name one (default:"
                + " txmsg_relay_<storeId>).")
    String slot;

    @Override
    void validate() {
      if (!storeId.matches("[A-Za-z0-9_\\-]{1,32}")) {
        throw usage(
            "--store must be 1..32 characters of [A-Za-z0-9_-], was " + LogSafe.quote(storeId));
      }
      if (slot != null && !slot.matches("[a-z_][a-z0-9_]{0,62}")) {
        throw usage("--slot must be a plain lower-case identifier, was " + LogSafe.quote(slot));
      }
    }

    String slotName() {
      return slot != null ? slot : CdcRelayStore.defaultSlotName(storeId);
    }

    CdcRelayStore relayStore(Database db) {
      if (db.store().dialect() == Dialect.H2) {
        throw usage("the database is H2, which has no change log: it has no CDC relay");
      }
      return new CdcRelayStore(db.dataSource(), db.store());
    }
  }

  @Command(
      name = "status",
      description = {
        "The relay's lease (owner, generation, expiry), its stored offset, the CDC rows not",
        "SENT yet and the oldest one's age, and on PostgreSQL the slot's lag in bytes.",
        "Exit 1 when --max-oldest-seconds is given and the oldest unsent CDC row is older."
      })
  static final class Status extends StoreCommand {
    @Option(
        names = "--max-oldest-seconds",
        paramLabel = "<s>",
        description = "Findings (exit 1) when the oldest unsent CDC row is older than this.")
    Long maxOldestSeconds;

    @Override
    int run(Database db, Output out) throws Exception {
      CdcRelayStore relay = relayStore(db);
      RelayLeaseRow lease = relay.lease(storeId);
      String offsets = relay.offsets(storeId);
      CdcBacklog backlog = relay.backlog(storeId);
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("store_id", storeId);
      doc.put("owner", lease == null ? null : lease.getOwnerInfo());
      doc.put("owner_token", lease == null ? null : lease.getOwnerToken());
      doc.put("generation", lease == null ? null : lease.getGeneration());
      doc.put("lease_until", lease == null ? null : lease.getLeaseUntil());
      doc.put("lease_live", relay.run(m -> m.liveLeases(storeId)) > 0);
      doc.put("stored_offset", offsets);
      doc.put("pending_cdc_rows", backlog.getPending());
      doc.put("oldest_pending_created_at", backlog.getOldest());
      doc.put("oldest_pending_age_seconds", backlog.oldestAge().toMillis() / 1000.0);
      if (db.store().dialect() == Dialect.POSTGRESQL) {
        Optional<SlotLag> lag = relay.slotLag(slotName());
        doc.put("slot", slotName());
        doc.put("slot_exists", lag.isPresent());
        doc.put("slot_active", lag.map(SlotLag::isActive).orElse(null));
        doc.put("slot_wal_status", lag.map(SlotLag::getWalStatus).orElse(null));
        doc.put("slot_unconfirmed_bytes", lag.map(SlotLag::getUnconfirmedBytes).orElse(null));
        doc.put("slot_retained_bytes", lag.map(SlotLag::getRetainedBytes).orElse(null));
      }
      if (out.json()) {
        out.json(doc);
      } else {
        out.record(doc);
      }
      if (maxOldestSeconds != null && backlog.oldestAge().getSeconds() > maxOldestSeconds) {
        return TxmsgCli.FINDINGS;
      }
      return TxmsgCli.OK;
    }
  }

  @Command(
      name = "reset",
      description = {
        "Drop the relay's stored offset and schema history and, on PostgreSQL, its slot, so",
        "that the relay restarts at the current end of the log. CDC rows committed before",
        "that and not SENT are NOT relayed: the reconciler sends them once they are",
        "cdcFallbackAfter old. Refused while a relay holds a live lease (stop every relay of",
        "the store first). Needs --yes."
      })
  static final class Reset extends StoreCommand {
    @Option(
        names = "--yes",
        description =
            "Confirm: the relay's position is dropped; older unsent rows go to the"
                + " reconciler.")
    boolean yes;

    @Override
    void validate() {
      super.validate();
      if (!yes) {
        throw usage(
            "cdc reset drops the relay's position (older unsent CDC rows are then sent by the"
                + " reconciler after cdcFallbackAfter): confirm with --yes");
      }
    }

    @Override
    int run(Database db, Output out) throws Exception {
      CdcRelayStore relay = relayStore(db);
      CdcBacklog backlog = relay.backlog(storeId);
      CdcRelayStore.Reset r = relay.resetPosition(storeId, slotName());
      if (r.leaseHeld()) {
        err()
            .println(
                "txmsg: a relay of store "
                    + storeId
                    + " holds a live lease; nothing was changed. Stop every relay of the store"
                    + " (or wait for the lease to expire), then run cdc reset again.");
        return TxmsgCli.FINDINGS;
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("store_id", storeId);
      doc.put("offset_rows_deleted", r.offsetRows());
      doc.put("history_rows_deleted", r.historyRows());
      if (db.store().dialect() == Dialect.POSTGRESQL) {
        doc.put("slot", slotName());
        doc.put("slot_dropped", r.slotDropped());
      }
      doc.put("pending_cdc_rows", backlog.getPending());
      doc.put(
          "note",
          "the relay starts at the current end of the log; the "
              + backlog.getPending()
              + " unsent CDC rows are sent by the reconciler once cdcFallbackAfter old");
      if (out.json()) {
        out.json(doc);
      } else {
        out.record(doc);
      }
      return TxmsgCli.OK;
    }
  }
}
