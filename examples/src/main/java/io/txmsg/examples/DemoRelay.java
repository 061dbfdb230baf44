package io.txmsg.examples;

import io.txmsg.api.DeliveryMode;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelaySettings;
import io.txmsg.cdc.CdcSource;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.transport.BrokerConnection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code --mode cdc}: the CDC relay of the demo's store, next to the producer. It reads the
 * journal's committed inserts from the database's log (PostgreSQL slot, MariaDB binlog) and sends
 * them. The slot and publication are the run's own (a slot is per server, a publication per
 * database, and the demo may share both); closing the relay drops its position, slot and
 * publication, because a slot left behind by a demo keeps WAL on the server forever.
 */
final class DemoRelay implements AutoCloseable {
  private final CdcRelay relay;
  private final DataSource dataSource;
  private final PrintStream out;
  private final String name;

  private DemoRelay(CdcRelay relay, DataSource dataSource, PrintStream out, String name) {
    this.relay = relay;
    this.dataSource = dataSource;
    this.out = out;
    this.name = name;
  }

  /** A started relay in CDC mode (waits until it reads the log), else null. */
  static DemoRelay startIf(
      DemoOptions o, PrintStream out, DataSource ds, String url, BrokerConnection connection) {
    if (o.mode != DeliveryMode.CDC) {
      return null;
    }
    String name = "txmsg_demo_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    CdcRelay relay =
        CdcRelay.builder()
            .dataSource(ds)
            .storeId(PaymentEvents.STORE_ID)
            .source(CdcSource.fromJdbcUrl(url, o.userFor(url), o.password))
            .connection(connection)
            .topics(Set.of(PaymentEvents.TOPIC))
            .settings(CdcRelaySettings.defaults().withSlotName(name).withPublication(name, true))
            .build();
    relay.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (relay.state() != CdcRelay.State.RELAYING && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    // Not yet relaying is no loss: rows committed before it starts go to the reconciler after
    // cdcFallbackAfter.
    out.printf("      CDC relay %s (generation %d)%n", relay.state(), relay.generation());
    return new DemoRelay(relay, ds, out, name);
  }

  @Override
  public void close() throws Exception {
    relay.close();
    TxmsgStore txmsg = TxmsgStore.detect(dataSource, "txmsg_");
    CdcRelayStore.Reset reset =
        new CdcRelayStore(dataSource, txmsg).resetPosition(PaymentEvents.STORE_ID, name);
    if (txmsg.dialect() == Dialect.POSTGRESQL) {
      new JdbcTemplate(dataSource).execute("DROP PUBLICATION IF EXISTS " + name);
    }
    out.printf(
        "      CDC relay closed; its position dropped (slot dropped: %s)%n", reset.slotDropped());
  }
}
