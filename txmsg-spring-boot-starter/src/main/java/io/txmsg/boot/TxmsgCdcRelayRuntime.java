package io.txmsg.boot;

import io.txmsg.cdc.CdcRelay;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * The CDC relay of a Spring Boot application whose producer writes CDC rows ({@code
 * txmsg.producer.delivery-mode=cdc}): started when this bean is created, after the producer (and so
 * after txmsg's schema migration), closed when the context closes. Every instance runs one; the
 * store's lease lets one relay at a time and the others wait ({@code WAITING_FOR_LEASE}).
 *
 * <p>A database that does not let the relay read its log ({@code wal_level}, {@code binlog_format},
 * a missing privilege) fails the start with a message saying what to set: no later attempt fixes
 * that. A broker that cannot be reached is waited out as for the producer ({@code
 * txmsg.broker.fail-fast}); meanwhile the reconciler sends the CDC rows after {@code
 * txmsg.producer.cdc-fallback-after}, so nothing waits for the relay forever.
 */
public final class TxmsgCdcRelayRuntime implements TxmsgRuntime, InitializingBean, DisposableBean {
  private final RuntimeStarter<CdcRelay> starter;
  private final AutoCloseable meters;

  /**
   * @param build builds and starts a relay (each call a fresh attempt)
   * @param meters closed with the relay (its metrics' lag reader); null: none
   */
  TxmsgCdcRelayRuntime(
      Supplier<CdcRelay> build, AutoCloseable meters, boolean failFast, Duration retry) {
    this.starter = new RuntimeStarter<>("cdcRelay", build, failFast, retry);
    this.meters = meters;
  }

  @Override
  public void afterPropertiesSet() {
    starter.start();
  }

  @Override
  public void destroy() throws Exception {
    try {
      starter.stop();
    } finally {
      if (meters != null) {
        meters.close();
      }
    }
  }

  /** The relay once it started (whether it holds the lease or waits for it), else empty. */
  public Optional<CdcRelay> relay() {
    return starter.running();
  }

  @Override
  public String name() {
    return "cdcRelay";
  }

  @Override
  public TxmsgRuntimeStatus status() {
    return starter.status();
  }

  /**
   * The relay's state and lease generation and, read from the database now, its lag: CDC rows not
   * SENT yet, the oldest one's age and, on PostgreSQL, the WAL the slot keeps on the server's disk.
   */
  @Override
  public Map<String, Object> details() {
    Optional<CdcRelay> running = relay();
    if (running.isEmpty()) {
      return Map.of();
    }
    CdcRelay r = running.get();
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("relay", r.state().name());
    d.put("generation", r.generation());
    try {
      CdcRelay.Lag lag = r.lag();
      d.put("lagRecords", lag.records());
      d.put("lagOldest", lag.oldest().toString());
      if (lag.slotRetainedBytes() != null) {
        d.put("slotRetainedBytes", lag.slotRetainedBytes());
      }
    } catch (Exception e) {
      d.put("lagError", e.toString());
    }
    return d;
  }
}
