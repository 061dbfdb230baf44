package io.txmsg.cdc;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.transport.Backoff;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * What a built relay runs with, sealed at {@link CdcRelay.Builder#build()}.
 *
 * @param storeId the store whose journal rows the relay sends
 * @param store the txmsg tables (dialect and prefix)
 * @param relayStore the relay's state and journal updates, on the application's DataSource
 * @param schema the schema (PostgreSQL) or database (MariaDB/MySQL) holding the journal
 * @param source where Debezium reads the log
 * @param settings the relay settings
 * @param slotName PostgreSQL: the slot
 * @param publicationName PostgreSQL: the publication
 * @param serverId MariaDB/MySQL: this instance's replica server id
 * @param listener the metrics and health hook
 */
record RelayConfig(
    String storeId,
    TxmsgStore store,
    CdcRelayStore relayStore,
    String schema,
    CdcSource source,
    CdcRelaySettings settings,
    String slotName,
    String publicationName,
    long serverId,
    CdcRelayListener listener) {

  String journalTable() {
    return store.prefix() + "journal";
  }

  /**
   * Debezium's logical name for the store: the prefix of its record topics and, on MariaDB/MySQL,
   * the key of its offsets, so it must stay the same across restarts and instances.
   */
  String logicalName() {
    return "txmsg_"
        + store.prefix()
        + storeId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

  void notifyCannotResume(String reason) {
    try {
      listener.cannotResume(storeId, reason);
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(CdcRelay.class).warn("cdc listener failed: {}", e.toString());
    }
  }

  Backoff backoff() {
    return Backoff.exponential(settings.backoffInitial(), settings.backoffMax());
  }
}
