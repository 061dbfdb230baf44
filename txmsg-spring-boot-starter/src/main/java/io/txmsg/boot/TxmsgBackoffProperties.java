package io.txmsg.boot;

import java.time.Duration;

/**
 * A backoff: {@code initial}, doubling, capped at {@code max}. Binds {@code
 * txmsg.producer.retry-backoff.*} and {@code txmsg.consumer.command-backoff.*}, which have the same
 * two properties and the same defaults.
 */
public class TxmsgBackoffProperties {
  /** First delay. */
  private Duration initial = Duration.ofSeconds(1);

  /** Largest delay. */
  private Duration max = Duration.ofMinutes(5);

  public Duration getInitial() {
    return initial;
  }

  public void setInitial(Duration initial) {
    this.initial = initial;
  }

  public Duration getMax() {
    return max;
  }

  public void setMax(Duration max) {
    this.max = max;
  }
}
