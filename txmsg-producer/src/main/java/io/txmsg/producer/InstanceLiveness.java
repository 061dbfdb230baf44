package io.txmsg.producer;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.InstanceHeartbeats;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This producer instance's heartbeat, and the takeover of hung instances of the same store.
 *
 * <p>The problem it solves: with several instances of a store, the broker asks about a half message
 * on one of the group's connections, and an instance that hangs while still connected (GC pause,
 * exhausted pool, stopped process) may keep being asked about its own committed events until the
 * broker expires its channel or gives up; the events would wait for that or for {@code
 * republishAfter} (10 minutes by default). So every instance beats in the store on a thread of its
 * own (an exhausted pool or a stopped process stops the beats too), and the reconciler of a live
 * instance calls {@link #takeOverStale} each round: the committed, unconfirmed half-message rows of
 * an instance silent for {@link TxProducerSettings#instanceStaleAfter} become due and are
 * republished by that reconciler (journal error code INSTANCE_STALE, meter {@code
 * txmsg.instance.takeover}).
 *
 * <p>Always safe, because only committed rows are republished: a hung instance that resumes may
 * still commit its half message, and the event is then delivered twice (consumers deduplicate). Its
 * uncommitted half messages are left to the check-back fence (a check-back answered by a live
 * instance finds no attempt row and fences the attempt); until one arrives they are not delivered.
 *
 * <p>An instance takes others over only after it has itself beaten without a gap for {@code
 * instanceStaleAfter}: after a database outage every beat is old, and no instance should take the
 * others' rows before they had the chance to beat again (that would only cause duplicates); the
 * same holds for an instance that was paused itself and has just resumed.
 */
final class InstanceLiveness implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InstanceLiveness.class);

  /** Instances not heard of for a day are forgotten (their rows are long past republishAfter). */
  private static final Duration FORGET_AFTER = Duration.ofDays(1);

  private static final int FORGET_EVERY_BEATS = 100;

  private final String instanceId = UUID.randomUUID().toString();
  private final String host = host();
  private final InstanceHeartbeats heartbeats;
  private final TxProducerSettings settings;
  private final ProducerMetrics metrics;
  private final ScheduledExecutorService beats;

  /** nanoTime of the first beat of the current unbroken run of beats; -1 while none. */
  private volatile long beatingSince = -1;

  private volatile long lastBeat = -1;
  private int beatCount;

  InstanceLiveness(
      DataSource dataSource, TxmsgStore store, TxProducerSettings settings, ProducerMetrics m) {
    this.heartbeats = new InstanceHeartbeats(dataSource, store, settings.storeId());
    this.settings = settings;
    this.metrics = m;
    if (!settings.instanceTakeoverEnabled()) {
      this.beats = null;
      return;
    }
    // First beat at once, so this instance's rows are never written under an unknown id for long.
    beatQuietly();
    this.beats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "txmsg-heartbeat-" + settings.storeId());
              t.setDaemon(true);
              return t;
            });
    long every = settings.heartbeatInterval().toMillis();
    beats.scheduleWithFixedDelay(this::beatQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /** The id this instance writes into its journal rows; null when the takeover is off. */
  String instanceId() {
    return settings.instanceTakeoverEnabled() ? instanceId : null;
  }

  private void beatQuietly() {
    long now = System.nanoTime();
    try {
      heartbeats.beat(instanceId, host);
      long previous = lastBeat;
      // A gap longer than the stale limit means this instance itself looked dead meanwhile (it was
      // paused, or its beats failed): its unbroken run starts again.
      if (beatingSince < 0
          || previous < 0
          || now - previous > settings.instanceStaleAfter().toNanos()) {
        beatingSince = now;
      }
      lastBeat = now;
      if (++beatCount % FORGET_EVERY_BEATS == 1) {
        heartbeats.forgetOlderThan(FORGET_AFTER.toMillis());
      }
    } catch (Exception e) {
      beatingSince = -1;
      log.warn("heartbeat of instance {} failed: {}", instanceId, e.toString());
    }
  }

  /**
   * Run by the reconciler before it claims: takes over the rows of the store's stale instances,
   * once this instance has beaten without a gap for instanceStaleAfter. Returns the rows made due.
   */
  int takeOverStale() throws Exception {
    if (beats == null) {
      return 0;
    }
    long since = beatingSince;
    long last = lastBeat;
    long now = System.nanoTime();
    long stale = settings.instanceStaleAfter().toNanos();
    if (since < 0 || now - since < stale || now - last > stale) {
      return 0;
    }
    List<InstanceHeartbeats.Takeover> taken =
        heartbeats.takeOver(instanceId, settings.instanceStaleAfter().toMillis());
    int rows = 0;
    for (InstanceHeartbeats.Takeover t : taken) {
      rows += t.rows();
      log.warn(
          "instance {} of store {} missed its heartbeats for {}: {} committed rows it left"
              + " unconfirmed are republished by this instance {}",
          t.staleInstance(),
          settings.storeId(),
          settings.instanceStaleAfter(),
          t.rows(),
          instanceId);
    }
    if (!taken.isEmpty()) {
      metrics.instanceTakeover(rows);
    }
    return rows;
  }

  /** Stops beating; the row stays, so live instances take over what this one left unconfirmed. */
  @Override
  public void close() {
    if (beats != null) {
      beats.shutdownNow();
    }
  }

  /** For people reading the table; no name lookup (it can block on DNS). */
  private static String host() {
    String name = System.getenv("HOSTNAME");
    return (name == null || name.isBlank() ? "" : name + " ")
        + "pid "
        + ProcessHandle.current().pid();
  }
}
