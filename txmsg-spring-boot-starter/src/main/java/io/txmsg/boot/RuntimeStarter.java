package io.txmsg.boot;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.TransportException;
import io.txmsg.boot.TxmsgRuntimeStatus.State;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one txmsg runtime (the producer, or the consumers) now, or, when the broker cannot be
 * reached and {@code txmsg.broker.fail-fast} is off, keeps trying in the background until it
 * starts. A broker that is briefly unreachable while the application starts must not fail the
 * start: the runtime is built exactly as it would be at start once the broker answers (topic kinds
 * and FIFO topics checked, retry policies read), never half-connected.
 *
 * <p>Which failures are waited out: a {@link TransportException} (broker unreachable, a topic or
 * group not found yet). Any other failure of the first attempt fails the start (bad settings, a
 * schema that must be applied first). In the background, an {@link InvalidSettingsException} stops
 * the retries ({@link State#FAILED}: a configuration that will not fix itself; the health indicator
 * reports DOWN); anything else (a database that blinked) is tried again.
 *
 * @param <T> the runtime ({@code TxProducer}, {@code TxConsumers})
 */
final class RuntimeStarter<T extends AutoCloseable> {
  private static final Logger log = LoggerFactory.getLogger(RuntimeStarter.class);

  private final String name;
  private final Supplier<T> start;
  private final boolean failFast;
  private final Duration retryInterval;
  private ScheduledExecutorService retries;
  private volatile T runtime;
  private volatile TxmsgRuntimeStatus status =
      new TxmsgRuntimeStatus(State.STOPPED, Instant.now(), 0, null);
  private boolean stopped;

  /**
   * @param name what starts, for logs ("producer", "consumers")
   * @param start builds and starts the runtime (each call a fresh attempt)
   * @param failFast whether a first attempt that cannot reach the broker fails the start
   * @param retryInterval pause between attempts
   */
  RuntimeStarter(String name, Supplier<T> start, boolean failFast, Duration retryInterval) {
    this.name = name;
    this.start = start;
    this.failFast = failFast;
    this.retryInterval = retryInterval;
  }

  /**
   * The first attempt, on the caller's thread.
   *
   * @throws RuntimeException the attempt's failure, unless it is a {@link TransportException} and
   *     fail-fast is off (then the attempts go on in the background)
   */
  synchronized void start() {
    if (runtime != null || retries != null) {
      return;
    }
    stopped = false;
    try {
      started(start.get(), 1);
    } catch (TransportException e) {
      if (failFast) {
        throw e;
      }
      status = new TxmsgRuntimeStatus(State.RETRYING, Instant.now(), 1, e);
      log.warn(
          "txmsg {} not started: {}; trying again every {} (txmsg.broker.fail-fast=true fails the"
              + " start instead)",
          name,
          e.getMessage(),
          retryInterval);
      retries =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "txmsg-" + name + "-start");
                t.setDaemon(true);
                return t;
              });
      retries.schedule(this::retry, retryInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void retry() {
    TxmsgRuntimeStatus before = status;
    int attempt = before.attempts() + 1;
    T built;
    try {
      built = start.get();
    } catch (InvalidSettingsException e) {
      synchronized (this) {
        status = new TxmsgRuntimeStatus(State.FAILED, Instant.now(), attempt, e);
        if (retries != null) {
          retries.shutdown();
          retries = null;
        }
      }
      log.error("txmsg {} cannot start and stops trying: {}", name, e.getMessage());
      return;
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        if (stopped) {
          return;
        }
        status = new TxmsgRuntimeStatus(State.RETRYING, before.since(), attempt, e);
        retries.schedule(this::retry, retryInterval.toMillis(), TimeUnit.MILLISECONDS);
      }
      // Every attempt fails the same way while the broker is down: say it when the reason changes
      // and about once a minute, not every few seconds.
      boolean changed = before.lastFailure() == null || !sameReason(before.lastFailure(), e);
      long perMinute = Math.max(1, Duration.ofMinutes(1).toMillis() / retryInterval.toMillis());
      if (changed || attempt % perMinute == 0) {
        log.warn(
            "txmsg {} still not started after {} attempts since {}: {}",
            name,
            attempt,
            before.since(),
            e.toString());
      }
      return;
    }
    synchronized (this) {
      if (stopped) {
        closeQuietly(built);
        return;
      }
      started(built, attempt);
      retries.shutdown();
      retries = null;
    }
    log.info("txmsg {} started after {} attempts (first at {})", name, attempt, before.since());
  }

  /** Same type and message but for numbers (the clients number their instances: ProducerImpl-7). */
  private static boolean sameReason(Throwable a, Throwable b) {
    return a.getClass() == b.getClass()
        && String.valueOf(a.getMessage())
            .replaceAll("\\d+", "#")
            .equals(String.valueOf(b.getMessage()).replaceAll("\\d+", "#"));
  }

  private void started(T built, int attempts) {
    runtime = built;
    status = new TxmsgRuntimeStatus(State.RUNNING, Instant.now(), attempts, null);
  }

  /** The runtime once it runs. */
  Optional<T> running() {
    return Optional.ofNullable(runtime);
  }

  TxmsgRuntimeStatus status() {
    return status;
  }

  /** Stops the attempts and closes the runtime if it runs. */
  synchronized void stop() {
    stopped = true;
    if (retries != null) {
      retries.shutdownNow();
      retries = null;
    }
    T r = runtime;
    runtime = null;
    status = new TxmsgRuntimeStatus(State.STOPPED, Instant.now(), status.attempts(), null);
    if (r != null) {
      closeQuietly(r);
    }
  }

  private void closeQuietly(T r) {
    try {
      r.close();
    } catch (Exception e) {
      log.warn("closing the txmsg {} failed: {}", name, e.toString());
    }
  }
}
