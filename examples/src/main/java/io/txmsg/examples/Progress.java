package io.txmsg.examples;

import io.micrometer.core.instrument.MeterRegistry;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.examples.app.ConsumeMetrics;
import io.txmsg.examples.events.PaymentEvents;
import io.txmsg.examples.notification.FakeSmsGateway;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/** Prints one progress line with rates every few seconds (from the in-memory counters). */
final class Progress implements AutoCloseable {
  private final PrintStream out;
  private final MeterRegistry registry;
  private final FakeSmsGateway gateway;
  private final IntSupplier committed;
  private final int orders;
  private final long start = System.nanoTime();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "demo-progress");
            t.setDaemon(true);
            return t;
          });
  private long lastCommitted;
  private long lastApplied;
  private long lastNanos = start;

  Progress(
      PrintStream out,
      MeterRegistry registry,
      FakeSmsGateway gateway,
      IntSupplier committed,
      int orders,
      Duration every) {
    this.out = out;
    this.registry = registry;
    this.gateway = gateway;
    this.committed = committed;
    this.orders = orders;
    timer.scheduleAtFixedRate(
        this::print, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
  }

  synchronized void print() {
    long now = System.nanoTime();
    double dt = Math.max(0.001, (now - lastNanos) / 1e9);
    long c = committed.getAsInt();
    long applied = ConsumeMetrics.count(registry, null, ConsumeOutcome.APPLIED);
    out.printf(
        "[%4ds] payments %d/%d (%.0f/s) | applied %d (%.0f/s): points %d, notification %d,"
            + " projection %d | duplicate %d, stale %d, parked %d, retry %d | sms calls %d%n",
        TimeUnit.NANOSECONDS.toSeconds(now - start),
        c,
        orders,
        (c - lastCommitted) / dt,
        applied,
        (applied - lastApplied) / dt,
        ConsumeMetrics.count(registry, PaymentEvents.POINTS, ConsumeOutcome.APPLIED),
        ConsumeMetrics.count(registry, PaymentEvents.NOTIFICATION, ConsumeOutcome.APPLIED),
        ConsumeMetrics.count(registry, PaymentEvents.SEARCH_PROJECTION, ConsumeOutcome.APPLIED),
        ConsumeMetrics.count(registry, null, ConsumeOutcome.DUPLICATE),
        ConsumeMetrics.count(registry, null, ConsumeOutcome.STALE),
        ConsumeMetrics.count(registry, null, ConsumeOutcome.PARKED),
        ConsumeMetrics.count(registry, null, ConsumeOutcome.RETRY),
        gateway.calls());
    lastCommitted = c;
    lastApplied = applied;
    lastNanos = now;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
