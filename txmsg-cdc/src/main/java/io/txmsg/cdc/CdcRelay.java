package io.txmsg.cdc;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.Resolution;
import io.txmsg.store.Dialect;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.cdc.CdcBacklog;
import io.txmsg.store.cdc.SlotLag;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.ProducerChannel;
import io.txmsg.transport.ProducerSpec;
import io.txmsg.transport.Transport;
import io.txmsg.transport.Transports;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
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
     * Holds the lease; the engine is starting (until it stored its first position: its first
     * record, a change or a heartbeat, plus at most one offset flush interval). Where a start has
     * no offset to resume from, inserts committed before the connector fixed its start position are
     * not relayed: the reconciler's fallback sends them.
     */
    STARTING,
    /**
     * Holds the lease, the connector reads the log and this engine stored a position to resume
     * from: every insert committed from now on is relayed, by this engine or, after a failure, by
     * the next one resuming there.
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
  private final LeaseSupervisor supervisor;

  private Transport ownedTransport;
  private ProducerChannel channel;

  private CdcRelay(Builder b, RelayConfig config, LogSource logSource) {
    this.dataSource = b.dataSource;
    this.config = config;
    this.logSource = logSource;
    this.givenTransport = b.transport;
    this.connection = b.connection;
    this.topics = Set.copyOf(b.topics);
    this.supervisor = new LeaseSupervisor(config, logSource);
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
    State state = supervisor.state();
    if (state != State.CREATED) {
      throw new IllegalStateException("the relay was started already (" + state + ")");
    }
    RelayChecks.beforeStart(dataSource, config, logSource);
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
    supervisor.start(channel);
  }

  public State state() {
    return supervisor.state();
  }

  /** The lease generation this instance holds, or held last; 0 before its first lease. */
  public long generation() {
    return supervisor.generation();
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
      if (!supervisor.markStopping(halt)) {
        return;
      }
    }
    supervisor.stop(halt);
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
    supervisor.closed();
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
      RelayConfig config =
          RelayChecks.seal(
              dataSource, storeId, tablePrefix, source, transport, connection, settings, listener);
      return new CdcRelay(this, config, LogSource.of(config.store().dialect()));
    }
  }
}
