package io.txmsg.cdc;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.store.Dialect;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.cdc.CdcRelayMapper;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Transport;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The checks of a relay before it reads anything: at {@link CdcRelay.Builder#build()} the settings
 * and the database type (sealed into a {@link RelayConfig}), at {@link CdcRelay#start()} the schema
 * version and the database's log settings.
 */
final class RelayChecks {
  private RelayChecks() {}

  /**
   * Checks the settings and the database type, and seals what the relay runs with.
   *
   * @throws InvalidSettingsException naming the setting ({@code cdc.dataSource} for H2, which has
   *     no log the relay could read)
   */
  static RelayConfig seal(
      DataSource dataSource,
      String storeId,
      String tablePrefix,
      CdcSource source,
      Transport transport,
      BrokerConnection connection,
      CdcRelaySettings settings,
      CdcRelayListener listener) {
    if (dataSource == null) {
      throw new InvalidSettingsException("cdc.dataSource", "is required");
    }
    if (storeId == null || storeId.isBlank() || storeId.length() > 64) {
      throw new InvalidSettingsException("cdc.storeId", "must be 1..64 characters");
    }
    try {
      TablePrefix.validate(tablePrefix);
    } catch (IllegalArgumentException e) {
      throw new InvalidSettingsException("cdc.tablePrefix", e.getMessage());
    }
    if (source == null) {
      throw new InvalidSettingsException(
          "cdc.source", "is required: CdcSource.of(host, port, database).withCredentials(..)");
    }
    source.validate();
    if ((transport == null) == (connection == null)) {
      throw new InvalidSettingsException(
          "cdc.transport",
          "set exactly one of transport(Transport) and connection(BrokerConnection)");
    }
    if (connection != null) {
      connection.validate();
    }
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(listener, "listener");
    settings.validate();
    TxmsgStore store = TxmsgStore.detect(dataSource, tablePrefix);
    if (store.dialect() == Dialect.H2) {
      throw new InvalidSettingsException(
          "cdc.dataSource",
          "is H2, which has no change log a relay could read: the CDC delivery mode needs"
              + " PostgreSQL (wal_level=logical) or MariaDB (binlog_format=ROW); use OUTBOX or"
              + " HALF_MESSAGE on H2");
    }
    CdcRelayStore relayStore = new CdcRelayStore(dataSource, store);
    String schema;
    try {
      schema = relayStore.run(CdcRelayMapper::currentSchema);
    } catch (Exception e) {
      throw new InvalidSettingsException(
          "cdc.dataSource", "cannot read its current schema: " + e.getMessage());
    }
    String slot =
        settings.slotName() != null ? settings.slotName() : CdcRelayStore.defaultSlotName(storeId);
    String publication =
        settings.publicationName() != null
            ? settings.publicationName()
            : tablePrefix + "journal_cdc";
    long serverId =
        settings.serverId() != 0
            ? settings.serverId()
            : ThreadLocalRandom.current().nextLong(100_000, Integer.MAX_VALUE);
    return new RelayConfig(
        storeId,
        store,
        relayStore,
        schema,
        source,
        settings,
        slot,
        publication,
        serverId,
        listener);
  }

  /**
   * The start-time checks: the schema is current, and the database lets the relay read its log (log
   * settings, privileges, the PostgreSQL publication — created when allowed).
   *
   * @throws CdcSetupException when the database does not allow the relay to read its log
   */
  static void beforeStart(DataSource dataSource, RelayConfig config, LogSource logSource) {
    SchemaMigrator.open(dataSource, config.store().prefix(), false); // the schema must be current
    try {
      logSource.check(config);
    } catch (CdcSetupException e) {
      throw e;
    } catch (Exception e) {
      throw new CdcSetupException(
          "the CDC relay could not check the database: " + e.getMessage(), e);
    }
  }
}
