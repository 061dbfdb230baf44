package io.txmsg.boot;

import java.time.Duration;

/**
 * Binds {@code txmsg.health.*}: the "txmsg" health indicator, UP however large the backlog unless a
 * threshold is set.
 */
public class TxmsgHealthProperties {
  /** Report DOWN when the journal has more DEAD rows than this. Unset: never. */
  private Long downWhenDeadRowsAbove;

  /** Report DOWN when PARKED dead letters (all groups) are more than this. Unset: never. */
  private Long downWhenParkedAbove;

  /** Report DOWN when the oldest unconfirmed journal row is older than this. Unset: never. */
  private Duration downWhenOldestUnconfirmedAbove;

  /**
   * Report DOWN when no broker address accepts a TCP connection. Off: a broker outage would take
   * every instance out of service at once, while txmsg keeps the events in the journal.
   */
  private boolean downWhenBrokerUnreachable = false;

  /** Probe the broker addresses (a TCP connect, nothing sent) on each health check. */
  private boolean brokerProbe = true;

  /** How long one address may take to accept the probe's connection. */
  private Duration brokerProbeTimeout = Duration.ofSeconds(1);

  public Long getDownWhenDeadRowsAbove() {
    return downWhenDeadRowsAbove;
  }

  public void setDownWhenDeadRowsAbove(Long downWhenDeadRowsAbove) {
    this.downWhenDeadRowsAbove = downWhenDeadRowsAbove;
  }

  public Long getDownWhenParkedAbove() {
    return downWhenParkedAbove;
  }

  public void setDownWhenParkedAbove(Long downWhenParkedAbove) {
    this.downWhenParkedAbove = downWhenParkedAbove;
  }

  public Duration getDownWhenOldestUnconfirmedAbove() {
    return downWhenOldestUnconfirmedAbove;
  }

  public void setDownWhenOldestUnconfirmedAbove(Duration downWhenOldestUnconfirmedAbove) {
    this.downWhenOldestUnconfirmedAbove = downWhenOldestUnconfirmedAbove;
  }

  public boolean isDownWhenBrokerUnreachable() {
    return downWhenBrokerUnreachable;
  }

  public void setDownWhenBrokerUnreachable(boolean downWhenBrokerUnreachable) {
    this.downWhenBrokerUnreachable = downWhenBrokerUnreachable;
  }

  public boolean isBrokerProbe() {
    return brokerProbe;
  }

  public void setBrokerProbe(boolean brokerProbe) {
    this.brokerProbe = brokerProbe;
  }

  public Duration getBrokerProbeTimeout() {
    return brokerProbeTimeout;
  }

  public void setBrokerProbeTimeout(Duration brokerProbeTimeout) {
    this.brokerProbeTimeout = brokerProbeTimeout;
  }
}
