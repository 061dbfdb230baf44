package io.txmsg.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelaySettings;
import io.txmsg.cdc.CdcSource;
import io.txmsg.cdc.micrometer.CdcRelayMetrics;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A CDC relay JVM: one {@link CdcRelay} of the world's store, as an application instance runs it
 * beside its producer. It says {@code READY} once started (it may still wait for the lease) and
 * {@code RELAYING <generation>} each time it starts reading the log under a new lease. Its database
 * link (the JDBC pool and the connector's log connection) goes to {@code url}, which a scenario may
 * point at a {@link TcpProxy}. On its standard input: {@code METERS} prints its counters ({@link
 * CdcRelayMetrics}: rows relayed, and the relay's events such as send_failed, cannot_resume,
 * lease_acquired), {@code CLOSE} stops it gracefully (offsets written, lease released).
 *
 * <p>Arguments besides the world's: {@code slot}, {@code publication} (PostgreSQL names of the
 * scenario's own), {@code leaseMs}, {@code offsetFlushMs} (how often the relay stores its position;
 * a long one leaves an old position behind for a successor).
 */
public final class RelayMain {
  private RelayMain() {}

  public static void main(String[] argv) throws Exception {
    try {
      relay(new Args(argv));
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(2);
    }
  }

  private static void relay(Args a) throws Exception {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(a.get("url"));
    hc.setUsername(a.get("user", ""));
    hc.setPassword(a.get("password", ""));
    hc.setMaximumPoolSize(4);
    hc.setConnectionTimeout(5_000);
    HikariDataSource ds = new HikariDataSource(hc);
    String store = a.get("store");
    MeterRegistry meters = new SimpleMeterRegistry();
    CdcRelayMetrics metrics = new CdcRelayMetrics(meters, store);
    CdcRelay relay =
        CdcRelay.builder()
            .dataSource(ds)
            .storeId(store)
            .source(CdcSource.fromJdbcUrl(a.get("url"), a.get("user", ""), a.get("password", "")))
            .connection(Handlers.connection(a))
            // As an application would: the topic's routes are loaded at start, not by the first
            // send after a takeover (over gRPC that first send could run out of its deadline on
            // the loaded machine while the route lookup waited).
            .topics(java.util.Set.of(a.get("topic")))
            .settings(settings(a))
            .listener(metrics)
            .build();
    listen(meters, relay);
    relay.start();
    Args.say("READY");
    // Reports each start of reading the log (the first lease, a takeover, a restart after an
    // engine failure): the scenario waits for it before it counts on this instance.
    CdcRelay.State last = null;
    while (true) {
      CdcRelay.State now = relay.state();
      if (now == CdcRelay.State.RELAYING && last != CdcRelay.State.RELAYING) {
        Args.say("RELAYING " + relay.generation());
      }
      if (now == CdcRelay.State.CLOSED) {
        Args.say("CLOSED");
        System.exit(0);
      }
      last = now;
      Thread.sleep(50);
    }
  }

  /** A short lease and backoff, so that a takeover and a resume happen within the short scale. */
  static CdcRelaySettings settings(Args a) {
    return CdcRelaySettings.defaults()
        .withSlotName(a.get("slot"))
        .withPublication(a.get("publication"), true)
        .withLease(Duration.ofMillis(a.getLong("leaseMs", 3_000)))
        .withHeartbeatInterval(Duration.ofMillis(300))
        .withOffsetFlushInterval(Duration.ofMillis(a.getLong("offsetFlushMs", 1_000)))
        .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(2));
  }

  private static void listen(MeterRegistry meters, CdcRelay relay) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  if (line.equals("METERS")) {
                    Args.say("METERS " + ProducerMain.counters(meters));
                  } else if (line.equals("CLOSE")) {
                    relay.close();
                  }
                }
              } catch (Exception e) {
                // the parent went away
              }
            },
            "parent-commands");
    t.setDaemon(true);
    t.start();
  }
}
