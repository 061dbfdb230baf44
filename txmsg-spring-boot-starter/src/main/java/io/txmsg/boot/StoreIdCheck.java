package io.txmsg.boot;

import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.ops.OpsQueries;
import io.txmsg.store.schema.SchemaMigrator;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Keeps an upgrade from stranding the journal rows of the store id the starter used to default to.
 *
 * <p>Earlier releases ran every producer without {@code txmsg.producer.store-id} as store {@value
 * #LEGACY}; now the store id defaults to {@code spring.application.name}. Only a producer running
 * with a row's store id sends, confirms, retries or re-queues it (and answers the broker's
 * check-back for it), so an upgraded service that silently switched ids would leave its unsent
 * {@value #LEGACY} rows to nobody. The start fails instead, naming both ids and the property.
 *
 * <p>The rule is narrow on purpose, because several services may legitimately share the txmsg
 * tables, each under its own store id: it applies only when this producer's store id was
 * <em>defaulted</em> (no {@code txmsg.producer.store-id}, and the id equals {@code
 * spring.application.name}), the journal holds rows of {@value #LEGACY} that are not SENT, and none
 * of this store id that are not SENT (rows of its own mean it already runs under the new id, so the
 * {@value #LEGACY} rows are another service's). Setting the property, to either id, is the
 * operator's decision and turns the check off. A database without the txmsg tables has nothing to
 * strand.
 */
final class StoreIdCheck {
  /** The store id of a producer that set none, before the starter defaulted it. */
  static final String LEGACY = new TxProducerSettings().storeId();

  private StoreIdCheck() {}

  /**
   * @param applicationName {@code spring.application.name}, or null
   * @throws InvalidTxmsgPropertyException naming {@code txmsg.producer.store-id} when the rule
   *     above refuses the start; nothing has been written then
   * @throws IllegalStateException when the journal cannot be read
   */
  static void check(
      DataSource dataSource,
      TxProducerSettings settings,
      TxmsgProperties properties,
      String applicationName) {
    String storeId = settings.storeId();
    boolean defaulted =
        properties.getProducer().getStoreId() == null && storeId.equals(applicationName);
    if (!defaulted || storeId.equals(LEGACY)) {
      return;
    }
    String prefix = settings.tablePrefix();
    long legacy;
    try {
      TxmsgStore store = TxmsgStore.detect(dataSource, prefix);
      if (new SchemaMigrator(dataSource, store).check().installed() == 0) {
        return; // no journal yet
      }
      OpsQueries queries = new OpsQueries(store);
      try (Connection c = dataSource.getConnection()) {
        legacy = queries.unsentJournalRows(c, LEGACY);
        if (legacy == 0 || queries.unsentJournalRows(c, storeId) > 0) {
          return;
        }
      }
    } catch (SQLException | RuntimeException e) {
      throw new IllegalStateException(
          "txmsg could not check the journal "
              + prefix
              + "journal for rows of store id '"
              + LEGACY
              + "' before starting the producer: "
              + e.getMessage(),
          e);
    }
    throw new InvalidTxmsgPropertyException(
        SettingsFromProperties.STORE_ID,
        "is not set, so this producer would run as store '"
            + storeId
            + "' (from "
            + SettingsFromProperties.APPLICATION_NAME
            + "), but "
            + prefix
            + "journal holds "
            + legacy
            + " rows of store '"
            + LEGACY
            + "' that are not SENT (PENDING, SENDING, RETRY or DEAD) and none of '"
            + storeId
            + "': the store id earlier releases used when none was set. Only a producer running"
            + " as '"
            + LEGACY
            + "' sends, confirms, retries or re-queues them. Set "
            + SettingsFromProperties.STORE_ID
            + "="
            + LEGACY
            + " to keep the id those rows carry (and the confirm group txmsg-confirm-"
            + LEGACY
            + "), or, if they belong to another service that runs as '"
            + LEGACY
            + "', set "
            + SettingsFromProperties.STORE_ID
            + "="
            + storeId
            + " explicitly");
  }
}
