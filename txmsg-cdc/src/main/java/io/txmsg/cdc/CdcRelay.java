package io.txmsg.cdc;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.Resolution;
import io.txmsg.store.Dialect;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.cdc.CdcBacklog;
import io.txmsg.store.cdc.CdcRelayMapper;
import io.txmsg.store.cdc.CdcRelayStore;
import io.txmsg.store.cdc.RelayFence;
import io.txmsg.store.cdc.SlotLag;
import io.txmsg.store.schema.SchemaMigrator;
import io.txmsg.transport.Backoff;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay of the CDC delivery mode: reads the committed inserts of a store's journal from the
 * database's own log (Debezium's embedded engine, in this JVM) and sends each CDC row on the
 * store's transport, byte-identical to what the reconciler would send, in commit order; then
 * records it SENT. See txmsg-cdc/README.md for the whole picture.
 *
 * <pre>{@code
 * CdcRelay relay = CdcRelay.builder()
 *     .dataSource(dataSource)                          // the application's (journal) database
 *     .storeId("orders")
 *     .source(CdcSource.of("db-host", 5432, "shop").withCredentials("txmsg_relay", secret))
 *     .connection(BrokerConnection.nameServer("ns1:9876"))
 *     .build();
 * relay.start();    // checks the database settings, then relays in the background
 * ...
 * relay.close();
 * }</pre>
 *
 * <p>Guarantees: at least once, in commit order. Debezium's offsets (in the txmsg database) only
 * pass a row once the broker answered SEND_OK for it and every row before it (or it was made DEAD,
 * or held back by the FIFO order rule); a crash resends from the stored offset. One relay per store
 * at a time (a lease row; every write of a former holder is fenced by the lease generation); start
 * one on every instance and the others wait. Never a snapshot: the first start, and a start whose
 * position is lost, begin at the current end of the log.
 */
public final class CdcRelay implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

  /** Where a relay is. */
  public enum State {
    /** Built, not started. */
    CREATED,
    /** Started; another instance holds the lease (or it is being acquired). */
    WAITING_FOR_LEASE,
    /**
     * Holds the lease; the engine is starting (until its first record: at most one heartbeat
     * interval on a quiet journal). Where a start has no offset to resume from, inserts committed
     * before the connector fixed its start position are not relayed: the reconciler's fallback
     * sends them.
     */
    STARTING,
    /**
     * Holds the lease and the connector reads the log (it handed over its first record, a change or
     * a heartbeat): every insert committed from now on is relayed.
     */
    RELAYING,
    /** Closed. */
    CLOSED
  }

  private final DataSource dataSource;
  private final RelayConfig config;
  private final LogSource logSource;
  private final Transport givenTransport;
  private final BrokerConnection connection;
  private final Set<String> topics;
  private final String ownerToken = UUID.randomUUID().toString();
  private final Object wake = new Object();

  private volatile State state = State.CREATED;
  private volatile boolean closing;
  private volatile boolean halted;
  private volatile RelayRun current;
  private volatile long generation;
  private Transport ownedTransport;
  private ProducerChannel channel;
  private Thread supervisor;
  private ExecutorService engineThread;

  private CdcRelay(Builder b, RelayConfig config, LogSource logSource) {
    this.dataSource = b.dataSource;
    this.config = config;
    this.logSource = logSource;
    this.givenTransport = b.transport;
    this.connection = b.connection;
    this.topics = Set.copyOf(b.topics);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Checks the database (schema version, log settings, privileges, the PostgreSQL publication —
   * created when allowed), opens the producer channel and starts relaying in the background: this
   * instance takes the store's lease as soon as nobody holds it.
   *
   * @throws CdcSetupException when the database does not allow the relay to read its log; the
   *     message says what to set or run. Nothing was read or sent.
   * @throws io.txmsg.store.schema.SchemaVersionException when the txmsg schema is older than V4
   * @throws IllegalStateException when called twice
   */
  public synchronized void start() {
    if (state != State.CREATED) {
      throw new IllegalStateException("the relay was started already (" + state + ")");
    }
    SchemaMigrator.open(dataSource, config.store().prefix(), false); // the schema must be current
    try {
      logSource.check(config);
    } catch (CdcSetupException e) {
      throw e;
    } catch (Exception e) {
      throw new CdcSetupException(
          "the CDC relay could not check the database: " + e.getMessage(), e);
    }
    Transport transport = givenTransport;
    if (transport == null) {
      ownedTransport = Transports.open(connection);
      transport = ownedTransport;
    }
    // A producer group of its own (txmsg-<storeId>-cdc over remoting): the relay sends no half
    // messages, so the broker never asks it to check one back.
    try {
      channel =
          transport.openProducer(
              new ProducerSpec(config.storeId() + "-cdc", topics, half -> Resolution.UNKNOWN));
    } catch (RuntimeException e) {
      if (ownedTransport != null) {
        ownedTransport.close();
      }
      throw e;
    }
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

  public State state() {
    return state;
  }

  /** The lease generation this instance holds, or held last; 0 before its first lease. */
  public long generation() {
    return generation;
  }

  public String storeId() {
    return config.storeId();
  }

  /**
   * How far behind the store's CDC rows are, as the database sees them (any instance can ask, the
   * lease holder or not).
   *
   * @param records the store's CDC rows not SENT yet (PENDING, SENDING, RETRY): the relay's
   *     backlog, plus rows it will not send (held back by the FIFO rule, committed before its start
   *     position) that the reconciler sends after cdcFallbackAfter
   * @param oldest how long the oldest of them has waited (database clock); zero when none
   * @param slotUnconfirmedBytes PostgreSQL: WAL written since the slot's confirmed position; null
   *     elsewhere or when the slot does not exist
   * @param slotRetainedBytes PostgreSQL: WAL the server keeps on disk for the slot (what fills the
   *     disk while no relay reads); null elsewhere or when the slot does not exist
   */
  public record Lag(
      long records, Duration oldest, Long slotUnconfirmedBytes, Long slotRetainedBytes) {}

  /**
   * Reads {@link Lag} now: one indexed query on the journal and, on PostgreSQL, one on
   * pg_replication_slots, each in a short transaction of its own.
   *
   * @throws Exception what the database threw
   */
  public Lag lag() throws Exception {
    CdcBacklog backlog = config.relayStore().backlog(config.storeId());
    Long unconfirmed = null;
    Long retained = null;
    if (config.store().dialect() == Dialect.POSTGRESQL) {
      Optional<SlotLag> slot = config.relayStore().slotLag(config.slotName());
      if (slot.isPresent()) {
        unconfirmed = slot.get().getUnconfirmedBytes();
        retained = slot.get().getRetainedBytes();
      }
    }
    return new Lag(backlog.getPending(), backlog.oldestAge(), unconfirmed, retained);
  }

  /**
   * Stops relaying: the row being sent is finished, SENT and the offsets are written, and the lease
   * is released so that another instance takes over at once. Idempotent.
   */
  @Override
  public void close() {
    stop(false);
  }

  /**
   * What a killed JVM leaves behind, for tests of the takeover: stops at once without writing SENT
   * or offsets and without releasing the lease (another instance takes over once it expires).
   */
  void halt() {
    stop(true);
  }

  private void stop(boolean halt) {
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      closing = true;
      halted = halt;
    }
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
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (Exception e) {
      log.warn("cdc producer channel did not close: {}", e.toString());
    }
    if (ownedTransport != null) {
      ownedTransport.close();
    }
    state = State.CLOSED;
  }

  // ---- the lease loop ---------------------------------------------------------------------------

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
      DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = engine(run, done);
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
      closeEngine(engine, done);
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

  private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine(
      RelayRun run, CompletableFuture<Throwable> done) {
    Properties p = properties(run);
    return DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
        .using(p)
        .notifying(
            new ChangeHandler(
                run,
                config,
                channel,
                () -> {
                  if (!run.stopping()) {
                    state = State.RELAYING;
                    log.info(
                        "cdc relaying storeId={} generation={}",
                        config.storeId(),
                        run.fence().generation());
                  }
                }))
        .using(
            (success, message, error) -> {
              if (error != null) {
                done.complete(error);
              } else if (!success && !run.stopping()) {
                done.complete(new IllegalStateException(message));
              } else {
                done.complete(null);
              }
            })
        .build();
  }

  private void closeEngine(DebeziumEngine<?> engine, CompletableFuture<Throwable> done) {
    try {
      engine.close();
    } catch (Exception e) {
      log.warn("cdc engine did not close cleanly storeId={}: {}", config.storeId(), e.toString());
    }
    try {
      done.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn(
          "cdc engine did not stop within 60 s storeId={}: {}", config.storeId(), e.toString());
    }
  }

  private Properties properties(RelayRun run) {
    CdcRelaySettings s = config.settings();
    Properties p = new Properties();
    p.setProperty("name", config.logicalName());
    p.setProperty("topic.prefix", config.logicalName());
    p.setProperty(RelayRun.CONFIG_KEY, run.id());
    p.setProperty("offset.storage", TxmsgOffsetStore.class.getName());
    p.setProperty("offset.flush.interval.ms", Long.toString(s.offsetFlushInterval().toMillis()));
    p.setProperty("offset.flush.timeout.ms", "30000");
    p.setProperty("database.hostname", config.source().host());
    p.setProperty("database.port", Integer.toString(config.source().port()));
    p.setProperty("database.user", config.source().user());
    p.setProperty("database.password", config.source().password());
    // Never a snapshot of the journal: a start without a usable offset begins at the current end
    // of the log; older unsent rows are the reconciler's.
    p.setProperty("snapshot.mode", "no_data");
    p.setProperty("poll.interval.ms", Long.toString(s.pollInterval().toMillis()));
    p.setProperty("max.batch.size", Integer.toString(s.maxBatchSize()));
    p.setProperty("max.queue.size", Integer.toString(s.maxQueueSize()));
    p.setProperty("max.queue.size.in.bytes", Long.toString(s.maxQueueBytes()));
    p.setProperty("heartbeat.interval.ms", Long.toString(s.heartbeatInterval().toMillis()));
    // Inserts only: the relay's own SENT updates (and every other update) are not events.
    p.setProperty("skipped.operations", "u,d,t");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("binary.handling.mode", "bytes");
    p.setProperty("record.processing.order", "ORDERED");
    logSource.configure(config, p);
    return p;
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

  /**
   * Builds a {@link CdcRelay}. Required: {@link #dataSource}, {@link #storeId}, {@link #source},
   * and {@link #transport} or {@link #connection}.
   */
  public static final class Builder {
    private DataSource dataSource;
    private String storeId;
    private String tablePrefix = TablePrefix.DEFAULT;
    private CdcSource source;
    private Transport transport;
    private BrokerConnection connection;
    private Set<String> topics = Set.of();
    private CdcRelaySettings settings = CdcRelaySettings.defaults();
    private CdcRelayListener listener = new CdcRelayListener() {};

    private Builder() {}

    /** The application's database, holding the journal; the relay's state is written there too. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** The store whose CDC rows this relay sends (rows of other stores are left alone). */
    public Builder storeId(String storeId) {
      this.storeId = storeId;
      return this;
    }

    /** The txmsg table prefix; default {@code txmsg_}. */
    public Builder tablePrefix(String tablePrefix) {
      this.tablePrefix = tablePrefix;
      return this;
    }

    /** Where and as whom Debezium reads the database's log. */
    public Builder source(CdcSource source) {
      this.source = source;
      return this;
    }

    /** A transport the application opened (and closes); or {@link #connection}. */
    public Builder transport(Transport transport) {
      this.transport = transport;
      return this;
    }

    /** The broker: the relay opens a transport for it and closes it; or {@link #transport}. */
    public Builder connection(BrokerConnection connection) {
      this.connection = connection;
      return this;
    }

    /**
     * Topics whose routes the producer channel loads at start (default none: loaded at the first
     * send to each). Over remoting, a listed topic that does not exist fails the start.
     */
    public Builder topics(Set<String> topics) {
      this.topics = Set.copyOf(topics);
      return this;
    }

    public Builder settings(CdcRelaySettings settings) {
      this.settings = settings;
      return this;
    }

    /** Metrics and health hook; default none. */
    public Builder listener(CdcRelayListener listener) {
      this.listener = listener;
      return this;
    }

    /**
     * Checks the settings and the database type.
     *
     * @throws InvalidSettingsException naming the setting ({@code cdc.dataSource} for H2, which has
     *     no log the relay could read)
     */
    public CdcRelay build() {
      if (dataSource == null) {
        throw new InvalidSettingsException("cdc.dataSource", "is required");
      }
      if (storeId == null || storeId.isBlank() || storeId.length() > 64) {
        throw new InvalidSettingsException("cdc.storeId", "must be 1..64 characters");
      }
      try {
        TablePrefix.validate(tablePrefix);
      } catch (IllegalArgumentException e) {
        throw new InvalidSettingsException("cdc.tablePrefix", e.getMessage());
      }
      if (source == null) {
        throw new InvalidSettingsException(
            "cdc.source", "is required: CdcSource.of(host, port, database).withCredentials(..)");
      }
      source.validate();
      if ((transport == null) == (connection == null)) {
        throw new InvalidSettingsException(
            "cdc.transport",
            "set exactly one of transport(Transport) and connection(BrokerConnection)");
      }
      if (connection != null) {
        connection.validate();
      }
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(listener, "listener");
      settings.validate();
      TxmsgStore store = TxmsgStore.detect(dataSource, tablePrefix);
      if (store.dialect() == Dialect.H2) {
        throw new InvalidSettingsException(
            "cdc.dataSource",
            "is H2, which has no change log a relay could read: the CDC delivery mode needs"
                + " PostgreSQL (wal_level=logical) or MariaDB (binlog_format=ROW); use OUTBOX or"
                + " HALF_MESSAGE on H2");
      }
      CdcRelayStore relayStore = new CdcRelayStore(dataSource, store);
      String schema;
      try {
        schema = relayStore.run(CdcRelayMapper::currentSchema);
      } catch (Exception e) {
        throw new InvalidSettingsException(
            "cdc.dataSource", "cannot read its current schema: " + e.getMessage());
      }
      String slot =
          settings.slotName() != null
              ? settings.slotName()
              : CdcRelayStore.defaultSlotName(storeId);
      String publication =
          settings.publicationName() != null
              ? settings.publicationName()
              : tablePrefix + "journal_cdc";
      long serverId =
          settings.serverId() != 0
              ? settings.serverId()
              : ThreadLocalRandom.current().nextLong(100_000, Integer.MAX_VALUE);
      RelayConfig config =
          new RelayConfig(
              storeId,
              store,
              relayStore,
              schema,
              source,
              settings,
              slot,
              publication,
              serverId,
              listener);
      return new CdcRelay(this, config, LogSource.of(store.dialect()));
    }
  }
}
