package io.txmsg.cdc;

import io.txmsg.api.InvalidSettingsException;
import java.time.Duration;

/**
 * How a {@link CdcRelay} reads and relays. Immutable: the {@code with…} methods return a copy;
 * {@link #defaults()} states every default. Checked by {@link CdcRelay.Builder#build()}, each
 * problem named as {@code cdc.<setting>}.
 */
public final class CdcRelaySettings {
  private final Duration lease;
  private final Duration pollInterval;
  private final Duration heartbeatInterval;
  private final Duration offsetFlushInterval;
  private final int maxBatchSize;
  private final int maxQueueSize;
  private final long maxQueueBytes;
  private final Duration backoffInitial;
  private final Duration backoffMax;
  private final int sentBatchSize;
  private final Duration sentLinger;
  private final String slotName;
  private final String publicationName;
  private final boolean createPublication;
  private final long serverId;
  private final boolean terminateStaleReader;

  private CdcRelaySettings(
      Duration lease,
      Duration pollInterval,
      Duration heartbeatInterval,
      Duration offsetFlushInterval,
      int maxBatchSize,
      int maxQueueSize,
      long maxQueueBytes,
      Duration backoffInitial,
      Duration backoffMax,
      int sentBatchSize,
      Duration sentLinger,
      String slotName,
      String publicationName,
      boolean createPublication,
      long serverId,
      boolean terminateStaleReader) {
    this.lease = lease;
    this.pollInterval = pollInterval;
    this.heartbeatInterval = heartbeatInterval;
    this.offsetFlushInterval = offsetFlushInterval;
    this.maxBatchSize = maxBatchSize;
    this.maxQueueSize = maxQueueSize;
    this.maxQueueBytes = maxQueueBytes;
    this.backoffInitial = backoffInitial;
    this.backoffMax = backoffMax;
    this.sentBatchSize = sentBatchSize;
    this.sentLinger = sentLinger;
    this.slotName = slotName;
    this.publicationName = publicationName;
    this.createPublication = createPublication;
    this.serverId = serverId;
    this.terminateStaleReader = terminateStaleReader;
  }

  /**
   * lease 30 s; pollInterval 10 ms; heartbeatInterval 10 s; offsetFlushInterval 1 s; maxBatchSize
   * 512, maxQueueSize 2048, maxQueueBytes 64 MiB; send backoff 200 ms doubling to 30 s; SENT
   * recorded in batches of up to 500 rows, at most 20 ms after the send; slot {@code
   * txmsg_relay_<storeId>}; publication {@code <prefix>journal_cdc}, created when missing; a random
   * MariaDB/MySQL server id per relay instance; a stale relay's walsender is terminated once its
   * lease expired.
   */
  public static CdcRelaySettings defaults() {
    return new CdcRelaySettings(
        Duration.ofSeconds(30),
        Duration.ofMillis(10),
        Duration.ofSeconds(10),
        Duration.ofSeconds(1),
        512,
        2048,
        64L * 1024 * 1024,
        Duration.ofMillis(200),
        Duration.ofSeconds(30),
        500,
        Duration.ofMillis(20),
        null,
        null,
        true,
        0,
        true);
  }

  /**
   * How long the relay lease lasts without renewal (default 30 s); renewed every third of it. When
   * the holder dies, another instance takes over once it expired: on PostgreSQL within max(lease,
   * wal_sender_timeout) unless the stale walsender is terminated ({@link
   * #withTerminateStaleReader}). A holder stops sending when its own lease time ran out without a
   * renewal.
   */
  public CdcRelaySettings withLease(Duration lease) {
    return copy(b -> b.lease = lease);
  }

  /**
   * How long Debezium's connector waits for new changes when its queue is empty (Debezium's {@code
   * poll.interval.ms}; default 10 ms). Debezium's own default, 500 ms, adds up to that much to
   * every row's commit→send latency (measured: 355–840 ms p50 against 50–85 ms with 10 ms).
   */
  public CdcRelaySettings withPollInterval(Duration pollInterval) {
    return copy(b -> b.pollInterval = pollInterval);
  }

  /**
   * How often the connector records its position without journal traffic (Debezium's {@code
   * heartbeat.interval.ms}; default 10 s): on PostgreSQL the slot's confirmed position moves only
   * with the relay's offsets, and a slot that does not move keeps WAL on the server's disk.
   */
  public CdcRelaySettings withHeartbeatInterval(Duration heartbeatInterval) {
    return copy(b -> b.heartbeatInterval = heartbeatInterval);
  }

  /**
   * How often the relay stores its offsets (default 1 s): what another instance or a restart
   * resumes from. Everything sent after the last stored offset is sent again after a crash
   * (consumers drop the duplicates). Each engine also stores its position right after its first
   * batch, so that a restart never starts later than where the failed engine began.
   */
  public CdcRelaySettings withOffsetFlushInterval(Duration offsetFlushInterval) {
    return copy(b -> b.offsetFlushInterval = offsetFlushInterval);
  }

  /**
   * Debezium's queue between the log reader and the relay: at most {@code maxBatchSize} records a
   * batch (default 512), {@code maxQueueSize} records (2048) and {@code maxQueueBytes} bytes (64
   * MiB) queued. Memory is bounded by these, not by the size of a transaction.
   */
  public CdcRelaySettings withQueue(int maxBatchSize, int maxQueueSize, long maxQueueBytes) {
    return copy(
        b -> {
          b.maxBatchSize = maxBatchSize;
          b.maxQueueSize = maxQueueSize;
          b.maxQueueBytes = maxQueueBytes;
        });
  }

  /**
   * The wait before sending a row again after a retryable failure: {@code initial}, doubling per
   * failure up to {@code max}, with ±20% jitter (default 200 ms to 30 s). Also the wait before
   * restarting an engine that stopped with an error.
   */
  public CdcRelaySettings withBackoff(Duration initial, Duration max) {
    return copy(
        b -> {
          b.backoffInitial = initial;
          b.backoffMax = max;
        });
  }

  /**
   * SENT is recorded off the send path, in one UPDATE per batch of up to {@code batchSize} rows
   * (default 500), at most {@code linger} after the send (default 20 ms).
   */
  public CdcRelaySettings withSentBatching(int batchSize, Duration linger) {
    return copy(
        b -> {
          b.sentBatchSize = batchSize;
          b.sentLinger = linger;
        });
  }

  /**
   * PostgreSQL: the replication slot of this store (default {@code txmsg_relay_<storeId>}, lower
   * case, other characters as '_'). Slots are per server, not per database: stores with one id in
   * two databases of a server need names of their own. Lower-case letters, digits and '_'.
   */
  public CdcRelaySettings withSlotName(String slotName) {
    return copy(b -> b.slotName = slotName);
  }

  /**
   * PostgreSQL: the publication the slot decodes (default {@code <prefix>journal_cdc}): the journal
   * table only, inserts only. With {@code create} (default true) the relay creates it when missing,
   * which needs the CREATE privilege on the database and ownership of the journal table; without, a
   * missing publication fails the start with the statement to run.
   */
  public CdcRelaySettings withPublication(String publicationName, boolean create) {
    return copy(
        b -> {
          b.publicationName = publicationName;
          b.createPublication = create;
        });
  }

  /**
   * MariaDB/MySQL: the server id this relay instance presents as a replica (default 0: a random id
   * from 100000 to 2^31-1, new for every relay instance). Two readers with one id make the server
   * drop the older connection, and nothing on the server is kept per id, so each instance needs its
   * own and a new one per start is safe; a fixed id must differ between instances, from the
   * server's own server_id and from every real replica's.
   */
  public CdcRelaySettings withServerId(long serverId) {
    return copy(b -> b.serverId = serverId);
  }

  /**
   * PostgreSQL: whether an instance that took over an expired lease terminates the walsender still
   * holding the slot (a stalled or partitioned former holder; default true). Otherwise it waits
   * until the server drops it after wal_sender_timeout. Terminating needs the same role as that
   * backend or membership in pg_signal_backend.
   */
  public CdcRelaySettings withTerminateStaleReader(boolean terminate) {
    return copy(b -> b.terminateStaleReader = terminate);
  }

  public Duration lease() {
    return lease;
  }

  /** A third of the lease. */
  public Duration renewInterval() {
    return lease.dividedBy(3);
  }

  public Duration pollInterval() {
    return pollInterval;
  }

  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  public Duration offsetFlushInterval() {
    return offsetFlushInterval;
  }

  public int maxBatchSize() {
    return maxBatchSize;
  }

  public int maxQueueSize() {
    return maxQueueSize;
  }

  public long maxQueueBytes() {
    return maxQueueBytes;
  }

  public Duration backoffInitial() {
    return backoffInitial;
  }

  public Duration backoffMax() {
    return backoffMax;
  }

  public int sentBatchSize() {
    return sentBatchSize;
  }

  public Duration sentLinger() {
    return sentLinger;
  }

  /** Null: the default for the store. */
  public String slotName() {
    return slotName;
  }

  /** Null: the default for the table prefix. */
  public String publicationName() {
    return publicationName;
  }

  public boolean createPublication() {
    return createPublication;
  }

  /** 0: a random id per relay instance. */
  public long serverId() {
    return serverId;
  }

  public boolean terminateStaleReader() {
    return terminateStaleReader;
  }

  /**
   * @throws InvalidSettingsException naming the setting
   */
  void validate() {
    positive("cdc.lease", lease);
    if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new InvalidSettingsException("cdc.lease", "must be at least 1 s, was " + lease);
    }
    positive("cdc.pollInterval", pollInterval);
    positive("cdc.heartbeatInterval", heartbeatInterval);
    positive("cdc.offsetFlushInterval", offsetFlushInterval);
    positive("cdc.backoffInitial", backoffInitial);
    positive("cdc.backoffMax", backoffMax);
    if (backoffMax.compareTo(backoffInitial) < 0) {
      throw new InvalidSettingsException("cdc.backoffMax", "must not be below backoffInitial");
    }
    positive("cdc.sentLinger", sentLinger);
    if (maxBatchSize < 1) {
      throw new InvalidSettingsException("cdc.maxBatchSize", "must be at least 1");
    }
    if (maxQueueSize <= maxBatchSize) {
      // Debezium's own rule: the queue holds more than one batch.
      throw new InvalidSettingsException("cdc.maxQueueSize", "must be greater than maxBatchSize");
    }
    if (maxQueueBytes < 1) {
      throw new InvalidSettingsException("cdc.maxQueueBytes", "must be positive");
    }
    if (sentBatchSize < 1) {
      throw new InvalidSettingsException("cdc.sentBatchSize", "must be at least 1");
    }
    if (slotName != null && !slotName.matches("[a-z0-9_]{1,63}")) {
      throw new InvalidSettingsException(
          "cdc.slotName", "'" + slotName + "' is not 1-63 lower-case letters, digits and '_'");
    }
    if (publicationName != null && !publicationName.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new InvalidSettingsException(
          "cdc.publicationName",
          "'" + publicationName + "' is not a lower-case identifier of up to 63 characters");
    }
    if (serverId < 0 || serverId > 4_294_967_295L) {
      throw new InvalidSettingsException(
          "cdc.serverId", "must be 0 (random) or 1..4294967295, was " + serverId);
    }
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidSettingsException(name, "must be positive, was " + d);
    }
  }

  private interface Edit {
    void apply(CdcRelaySettings.Mutable b);
  }

  private static final class Mutable {
    Duration lease;
    Duration pollInterval;
    Duration heartbeatInterval;
    Duration offsetFlushInterval;
    int maxBatchSize;
    int maxQueueSize;
    long maxQueueBytes;
    Duration backoffInitial;
    Duration backoffMax;
    int sentBatchSize;
    Duration sentLinger;
    String slotName;
    String publicationName;
    boolean createPublication;
    long serverId;
    boolean terminateStaleReader;
  }

  private CdcRelaySettings copy(Edit edit) {
    Mutable b = new Mutable();
    b.lease = lease;
    b.pollInterval = pollInterval;
    b.heartbeatInterval = heartbeatInterval;
    b.offsetFlushInterval = offsetFlushInterval;
    b.maxBatchSize = maxBatchSize;
    b.maxQueueSize = maxQueueSize;
    b.maxQueueBytes = maxQueueBytes;
    b.backoffInitial = backoffInitial;
    b.backoffMax = backoffMax;
    b.sentBatchSize = sentBatchSize;
    b.sentLinger = sentLinger;
    b.slotName = slotName;
    b.publicationName = publicationName;
    b.createPublication = createPublication;
    b.serverId = serverId;
    b.terminateStaleReader = terminateStaleReader;
    edit.apply(b);
    return new CdcRelaySettings(
        b.lease,
        b.pollInterval,
        b.heartbeatInterval,
        b.offsetFlushInterval,
        b.maxBatchSize,
        b.maxQueueSize,
        b.maxQueueBytes,
        b.backoffInitial,
        b.backoffMax,
        b.sentBatchSize,
        b.sentLinger,
        b.slotName,
        b.publicationName,
        b.createPublication,
        b.serverId,
        b.terminateStaleReader);
  }
}
