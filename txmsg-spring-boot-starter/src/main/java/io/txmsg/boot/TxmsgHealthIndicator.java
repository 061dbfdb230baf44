package io.txmsg.boot;

import io.txmsg.store.TxmsgStore;
import io.txmsg.transport.BrokerConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code txmsg} health indicator: the backlog of the txmsg tables as details. UP by default
 * whatever the backlog: a broker outage grows every instance's backlog at once, and reporting DOWN
 * then would take the whole service out of its load balancer. DOWN only when a {@code
 * txmsg.health.down-when-*} threshold is set and exceeded. When the tables cannot be read the
 * status is UNKNOWN (the DataSource's own indicator reports a database outage). The {@code broker}
 * detail says whether the broker's addresses accept a TCP connection ({@link BrokerProbe}); the
 * {@code producer} and {@code consumers} details where each runtime stands ({@link
 * TxmsgRuntimeStatus}): RETRYING while the broker could not be reached yet (UP: the outage rule
 * above), FAILED when it gave up on a configuration error (DOWN: no later attempt fixes that).
 */
public class TxmsgHealthIndicator implements HealthIndicator {
  private final DataSource dataSource;
  private final String tablePrefix;
  private final TxmsgHealthProperties thresholds;
  private final BrokerProbe probe;
  private final List<TxmsgRuntime> runtimes;
  // Built on the first check: detecting the dialect needs a connection.
  private volatile TxmsgStore store;

  /**
   * @param dataSource the application's DataSource, where the txmsg tables are
   * @param tablePrefix the txmsg table prefix
   * @param thresholds the opt-in DOWN thresholds
   */
  public TxmsgHealthIndicator(
      DataSource dataSource, String tablePrefix, TxmsgHealthProperties thresholds) {
    this(dataSource, tablePrefix, thresholds, null, List.of());
  }

  /**
   * @param dataSource the application's DataSource, where the txmsg tables are
   * @param tablePrefix the txmsg table prefix
   * @param thresholds the opt-in DOWN thresholds and the broker probe's settings
   * @param broker the runtimes' broker connection, probed when {@code txmsg.health.broker-probe} is
   *     on; null: no broker details
   * @param runtimes the runtimes whose state is a detail
   */
  public TxmsgHealthIndicator(
      DataSource dataSource,
      String tablePrefix,
      TxmsgHealthProperties thresholds,
      BrokerConnection broker,
      List<TxmsgRuntime> runtimes) {
    this.dataSource = dataSource;
    this.tablePrefix = tablePrefix;
    this.thresholds = thresholds;
    this.probe =
        broker == null || !thresholds.isBrokerProbe() || broker.address() == null
            ? null
            : new BrokerProbe(broker, thresholds.getBrokerProbeTimeout());
    this.runtimes = List.copyOf(runtimes);
  }

  @Override
  public Health health() {
    BrokerProbe.Result broker = probe == null ? null : probe.probe();
    TxmsgBacklog b;
    try {
      b = TxmsgBacklog.read(dataSource, store());
    } catch (Exception e) {
      Health.Builder unknown = Health.unknown().withDetail("error", e.getClass().getName());
      return withRuntimes(withBroker(unknown, broker)).build();
    }
    List<String> exceeded = exceeded(b);
    for (TxmsgRuntime r : runtimes) {
      if (r.status().state() == TxmsgRuntimeStatus.State.FAILED) {
        exceeded.add(r.name() + " FAILED");
      }
    }
    if (broker != null && !broker.anyReachable() && thresholds.isDownWhenBrokerUnreachable()) {
      exceeded.add("txmsg.health.down-when-broker-unreachable=true");
    }
    Health.Builder h = exceeded.isEmpty() ? Health.up() : Health.status(Status.DOWN);
    h.withDetail("pending", b.pending())
        .withDetail(
            "oldestUnconfirmedAge",
            b.oldestUnconfirmed() == null ? "none" : b.oldestUnconfirmed().toString())
        .withDetail("deadRows", b.dead())
        .withDetail("parkedDeadLetters", b.parkedByGroup());
    withRuntimes(withBroker(h, broker));
    if (!exceeded.isEmpty()) {
      h.withDetail("exceeded", exceeded);
    }
    return h.build();
  }

  private static Health.Builder withBroker(Health.Builder h, BrokerProbe.Result broker) {
    if (broker != null) {
      h.withDetail(
          "broker",
          Map.of(
              "protocol", broker.protocol(),
              "reachable", broker.anyReachable(),
              "addresses", broker.addresses()));
    }
    return h;
  }

  private Health.Builder withRuntimes(Health.Builder h) {
    for (TxmsgRuntime r : runtimes) {
      TxmsgRuntimeStatus s = r.status();
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("state", s.state().name());
      detail.put("since", s.since().toString());
      detail.put("attempts", s.attempts());
      if (s.lastFailure() != null && s.state() != TxmsgRuntimeStatus.State.RUNNING) {
        detail.put("lastFailure", s.lastFailure().toString());
      }
      detail.putAll(r.details());
      h.withDetail(r.name(), detail);
    }
    return h;
  }

  private List<String> exceeded(TxmsgBacklog b) {
    List<String> exceeded = new ArrayList<>();
    Long dead = thresholds.getDownWhenDeadRowsAbove();
    if (dead != null && b.dead() > dead) {
      exceeded.add("txmsg.health.down-when-dead-rows-above=" + dead);
    }
    Long parked = thresholds.getDownWhenParkedAbove();
    if (parked != null && b.parked() > parked) {
      exceeded.add("txmsg.health.down-when-parked-above=" + parked);
    }
    Duration age = thresholds.getDownWhenOldestUnconfirmedAbove();
    if (age != null && b.oldestUnconfirmed() != null && b.oldestUnconfirmed().compareTo(age) > 0) {
      exceeded.add("txmsg.health.down-when-oldest-unconfirmed-above=" + age);
    }
    return exceeded;
  }

  private TxmsgStore store() {
    TxmsgStore s = store;
    if (s == null) {
      s = TxmsgStore.detect(dataSource, tablePrefix);
      store = s;
    }
    return s;
  }
}
