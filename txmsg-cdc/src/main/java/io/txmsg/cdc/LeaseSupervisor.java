package io.txmsg.cdc;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.txmsg.cdc.CdcRelay.State;
import io.txmsg.store.cdc.RelayFence;
import io.txmsg.transport.Backoff;
import io.txmsg.transport.ProducerChannel;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ownership of a store's relaying, on a thread of its own: waits for the store's lease (one
 * relay per store at a time), runs the engine while it holds it, renews it, restarts a failed
 * engine after a backoff, and at the end records the last SENT batch and releases the lease. Its
 * {@link #state()} is the relay's.
 */
final class LeaseSupervisor {
  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

  private final RelayConfig config;
  private final LogSource logSource;
  private final String ownerToken = UUID.randomUUID().toString();
  private final Object wake = new Object();

  private volatile State state = State.CREATED;
  private volatile boolean closing;
  private volatile boolean halted;
  private volatile RelayRun current;
  private volatile long generation;
  private RelayEngine engines;
  private Thread supervisor;
  private ExecutorService engineThread;

  LeaseSupervisor(RelayConfig config, LogSource logSource) {
    this.config = config;
    this.logSource = logSource;
  }

  State state() {
    return state;
  }

  long generation() {
    return generation;
  }

  /** Starts waiting for the lease in the background; the engine sends on {@code channel}. */
  void start(ProducerChannel channel) {
    engines = new RelayEngine(config, logSource, channel);
    engineThread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "txmsg-cdc-engine-" + config.storeId());
              t.setDaemon(true);
              return t;
            });
    state = State.WAITING_FOR_LEASE;
    supervisor = new Thread(this::supervise, "txmsg-cdc-" + config.storeId());
    supervisor.setDaemon(true);
    supervisor.start();
  }

  /**
   * Marks the supervisor stopping, {@code halt} to stop as a killed JVM would (no SENT, no offsets,
   * no release); false when it was closed already. The caller synchronizes it with the start.
   */
  boolean markStopping(boolean halt) {
    if (state == State.CLOSED) {
      return false;
    }
    closing = true;
    halted = halt;
    return true;
  }

  /** Stops the current run and waits (at most 60 s) for the supervisor thread to end. */
  void stop(boolean halt) {
    RelayRun run = current;
    if (run != null) {
      if (halt) {
        run.halt();
      }
      run.stop(halt ? "halted" : "closing");
    }
    synchronized (wake) {
      wake.notifyAll();
    }
    Thread s = supervisor;
    if (s != null) {
      try {
        s.join(TimeUnit.SECONDS.toMillis(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (engineThread != null) {
      engineThread.shutdownNow();
    }
  }

  void closed() {
    state = State.CLOSED;
  }

  private void supervise() {
    String ownerInfo = ownerInfo();
    Duration lease = config.settings().lease();
    long poll = Math.min(1000, config.settings().renewInterval().toMillis());
    while (!closing) {
      long startedAt = System.nanoTime();
      Optional<RelayFence> fence;
      try {
        fence = config.relayStore().tryAcquire(config.storeId(), ownerToken, lease, ownerInfo);
      } catch (Exception e) {
        log.warn("cdc lease not acquired storeId={}: {}", config.storeId(), e.toString());
        fence = Optional.empty();
      }
      if (fence.isEmpty()) {
        state = State.WAITING_FOR_LEASE;
        sleep(poll);
        continue;
      }
      RelayRun run = new RelayRun(fence.get(), config.relayStore(), lease, startedAt, config);
      current = run;
      generation = run.fence().generation();
      if (closing) {
        run.stop("closing");
      }
      log.info(
          "cdc lease acquired storeId={} generation={} owner={}",
          config.storeId(),
          generation,
          ownerInfo);
      listen(() -> config.listener().leaseAcquired(config.storeId(), generation));
      try {
        hold(run);
      } catch (RuntimeException | Error e) {
        log.error("cdc relay failed storeId={}", config.storeId(), e);
      } finally {
        end(run);
        current = null;
      }
    }
  }

  /** Runs the engine while the lease holds: renews it, restarts a failed engine after a backoff. */
  private void hold(RelayRun run) {
    Backoff backoff = config.backoff();
    long renewNanos = config.settings().renewInterval().toNanos();
    int failures = 0;
    while (!run.stopping()) {
      state = State.STARTING;
      try {
        logSource.prepare(config, run, () -> renew(run));
      } catch (RelayStoppedException e) {
        return;
      } catch (Exception e) {
        failures++;
        long wait = backoff.millis(failures);
        log.warn(
            "cdc prepare failed storeId={} retryInMs={}: {}", config.storeId(), wait, e.toString());
        if (!pauseRenewing(run, wait)) {
          return;
        }
        continue;
      }
      CompletableFuture<Throwable> done = new CompletableFuture<>();
      // RELAYING once this engine stored a position, not at its first record: an engine that
      // starts without an offset and fails before its first offset write leaves nothing to resume
      // from, and the next one starts at the then current end of the log. Only a stored position
      // makes "every insert committed from now on is relayed" true across such a restart.
      run.onPositionStored(
          () -> {
            if (!run.stopping() && state != State.RELAYING) {
              state = State.RELAYING;
              log.info(
                  "cdc relaying storeId={} generation={}",
                  config.storeId(),
                  run.fence().generation());
            }
          });
      DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = engines.create(run, done);
      engineThread.execute(engine);
      long lastRenewal = System.nanoTime();
      Throwable failure;
      while (true) {
        try {
          // Short waits: a close or a lost lease stops the engine at once, also when no record
          // flows (the handler would see the stop only with the next record).
          failure = done.get(100, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          if (run.stopping()) {
            failure = null;
            break;
          }
          if (System.nanoTime() - lastRenewal >= renewNanos) {
            lastRenewal = System.nanoTime();
            if (!renew(run)) {
              failure = null;
              break;
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          run.stop("interrupted");
          failure = null;
          break;
        } catch (java.util.concurrent.ExecutionException e) {
          failure = e.getCause();
          break;
        }
      }
      engines.close(engine, done);
      if (run.stopping()) {
        return;
      }
      failures++;
      long wait = backoff.millis(failures);
      Throwable error = failure;
      log.error(
          "cdc engine stopped storeId={} retryInMs={}: {}",
          config.storeId(),
          wait,
          error == null ? "without an error" : error.toString(),
          error);
      listen(() -> config.listener().engineFailed(config.storeId(), error, wait));
      if (!pauseRenewing(run, wait)) {
        return;
      }
    }
  }

  /** Renews the run's lease; false (and the run told to stop) when it was lost. */
  private boolean renew(RelayRun run) {
    if (run.stopping()) {
      return false;
    }
    long startedAt = System.nanoTime();
    try {
      if (config.relayStore().renew(run.fence(), config.settings().lease())) {
        run.renewed(startedAt);
        return true;
      }
      run.lost("taken over by another instance");
    } catch (Exception e) {
      log.warn("cdc lease not renewed storeId={}: {}", config.storeId(), e.toString());
      if (run.validNow()) {
        return true; // try again at the next renewal; sending stops if the lease runs out first
      }
      run.lost("not renewed in time: " + e);
    }
    log.warn(
        "cdc lease lost storeId={} generation={}: {}",
        config.storeId(),
        run.fence().generation(),
        run.stopReason());
    listen(() -> config.listener().leaseLost(config.storeId(), run.fence().generation()));
    return false;
  }

  /** Waits {@code millis}, renewing the lease meanwhile; false when the run stopped. */
  private boolean pauseRenewing(RelayRun run, long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    long slice = config.settings().renewInterval().toMillis();
    try {
      while (System.nanoTime() - end < 0) {
        run.pause(Math.min(slice, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
        if (!renew(run)) {
          return false;
        }
      }
      return true;
    } catch (RelayStoppedException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      run.stop("interrupted");
      return false;
    }
  }

  /** After the run: the last SENT batch, then the lease released (unless lost or halted). */
  private void end(RelayRun run) {
    try {
      if (!halted && !run.isLost()) {
        try {
          run.recorder().flush();
        } catch (Exception e) {
          log.warn(
              "cdc last SENT batch not recorded storeId={}: {}", config.storeId(), e.toString());
        }
        if (closing) {
          try {
            config.relayStore().release(run.fence());
            log.info(
                "cdc lease released storeId={} generation={}",
                config.storeId(),
                run.fence().generation());
          } catch (Exception e) {
            log.warn(
                "cdc lease not released storeId={} (it expires): {}",
                config.storeId(),
                e.toString());
          }
        }
      }
    } finally {
      run.close();
    }
  }

  private void sleep(long millis) {
    synchronized (wake) {
      if (closing) {
        return;
      }
      try {
        wake.wait(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closing = true;
      }
    }
  }

  private void listen(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.warn("cdc listener failed: {}", e.toString());
    }
  }

  private static String ownerInfo() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    String info =
        host
            + " pid "
            + ProcessHandle.current().pid()
            + " "
            + ManagementFactory.getRuntimeMXBean().getName();
    return info.length() <= 255 ? info : info.substring(0, 255);
  }
}
