package io.txmsg.cdc;

import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.RelayFence;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One period of holding the lease: its fence, how long the lease is valid by this instance's own
 * clock, and the stop signal the engine's thread obeys. Debezium creates the offset store and the
 * schema history itself (by class name), so they find their run through {@link #find}, keyed by the
 * id the relay puts into the engine's configuration ({@value #CONFIG_KEY}).
 */
final class RelayRun {
  static final String CONFIG_KEY = "txmsg.relay.run";
  private static final Map<String, RelayRun> RUNS = new ConcurrentHashMap<>();

  private final String id = UUID.randomUUID().toString();
  private final RelayFence fence;
  private final CdcRelayStore store;
  private final long validNanos;
  private final SentRecorder recorder;
  private final Object signal = new Object();
  private volatile long validUntilNanos;
  private volatile String stopReason;
  private volatile boolean lost;
  private volatile boolean halted;
  private volatile Runnable positionStored = () -> {};

  RelayRun(
      RelayFence fence,
      CdcRelayStore store,
      Duration lease,
      long acquiredAtNanos,
      RelayConfig config) {
    this.fence = fence;
    this.store = store;
    // Nine tenths: the lease row's deadline is the database's clock at the statement plus the
    // lease; this instance counts from before the statement and leaves room for clock drift.
    this.validNanos = lease.toNanos() / 10 * 9;
    this.validUntilNanos = acquiredAtNanos + validNanos;
    this.recorder = new SentRecorder(store, fence, config, this::lost);
    RUNS.put(id, this);
  }

  static RelayRun find(String id) {
    RelayRun run = id == null ? null : RUNS.get(id);
    if (run == null) {
      throw new IllegalStateException(
          "no running CDC relay for " + CONFIG_KEY + "=" + id + " (the relay has stopped)");
    }
    return run;
  }

  String id() {
    return id;
  }

  RelayFence fence() {
    return fence;
  }

  CdcRelayStore store() {
    return store;
  }

  SentRecorder recorder() {
    return recorder;
  }

  /**
   * Runs {@code callback} after each offset write of the engine that starts next (the supervisor
   * sets one per engine: a stored position is what a restart resumes from).
   */
  void onPositionStored(Runnable callback) {
    positionStored = callback;
  }

  /** The engine's offsets were written (fenced by this run's lease). */
  void positionStored() {
    positionStored.run();
  }

  /** The lease was renewed by a statement that started at {@code startedNanos}. */
  void renewed(long startedNanos) {
    validUntilNanos = startedNanos + validNanos;
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  boolean validNow() {
    return System.nanoTime() - validUntilNanos < 0;
  }

  /** The lease is gone (taken over or a write was fenced): stop sending at once. */
  void lost(String reason) {
    lost = true;
    stop("lease lost: " + reason);
  }

  boolean isLost() {
    return lost;
  }

  /**
   * A simulated kill (tests): nothing more is written, not even the offsets at the engine's stop.
   */
  void halt() {
    halted = true;
  }

  boolean halted() {
    return halted;
  }

  void stop(String reason) {
    if (stopReason == null) {
      stopReason = reason;
    }
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  boolean stopping() {
    return stopReason != null;
  }

  String stopReason() {
    return stopReason;
  }

  /**
   * Returns when a row may be sent: the run is not stopping and its lease is valid by this
   * instance's clock. While the lease is past its local deadline (a renewal is late) it waits.
   *
   * @throws RelayStoppedException once the run stops
   */
  void awaitSendable() throws InterruptedException {
    synchronized (signal) {
      while (true) {
        if (stopReason != null) {
          throw new RelayStoppedException(stopReason);
        }
        if (validNow()) {
          return;
        }
        signal.wait(50);
      }
    }
  }

  /**
   * Waits {@code millis} unless the run stops first.
   *
   * @throws RelayStoppedException once the run stops
   */
  void pause(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    synchronized (signal) {
      while (true) {
        if (stopReason != null) {
          throw new RelayStoppedException(stopReason);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        signal.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Unregisters the run; the recorder's last batch is written by the caller first. */
  void close() {
    RUNS.remove(id);
    recorder.close();
  }
}
