package io.txmsg.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.cdc.CdcRelay;
import io.txmsg.cdc.CdcRelayListener;
import io.txmsg.cdc.micrometer.CdcRelayMetrics;
import java.time.Duration;
import org.springframework.beans.factory.BeanFactory;

/**
 * The relay's Micrometer meters in the context's registry; loaded only when micrometer-core is on
 * the class path, so that the starter runs without it.
 */
final class CdcRelayMeters implements AutoCloseable {
  private final CdcRelayMetrics metrics;

  private CdcRelayMeters(CdcRelayMetrics metrics) {
    this.metrics = metrics;
  }

  /** The meters of {@code storeId}, or null when the context has no MeterRegistry. */
  static CdcRelayMeters of(BeanFactory beanFactory, String storeId) {
    MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfAvailable();
    return registry == null ? null : new CdcRelayMeters(new CdcRelayMetrics(registry, storeId));
  }

  CdcRelayListener listener() {
    return metrics;
  }

  /** Starts reading the lag gauges of the relay that started. */
  void bind(CdcRelay relay, Duration interval) {
    metrics.bind(relay, interval);
  }

  @Override
  public void close() {
    metrics.close();
  }
}
