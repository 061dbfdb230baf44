package io.txmsg.producer;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.LogSafe;
import io.txmsg.api.SealableSettings;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.transport.BrokerConnection;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Settings of one txmsg producer store. Every setter states its default; {@link #validate()} fails
 * fast with an {@link InvalidSettingsException} naming the setting. {@link
 * TxProducer.Builder#build()} takes a validated, sealed {@link #copy()}: changing these settings
 * afterwards changes nothing in the running producer, and the sealed copy refuses changes.
 */
public final class TxProducerSettings extends SealableSettings<TxProducerSettings> {
  static final int BROKER_MAX_BODY_BYTES = 4 * 1024 * 1024;

  private BrokerConnection connection = BrokerConnection.none();
  private String storeId = "default";
  private String tablePrefix = TablePrefix.DEFAULT;
  private Set<String> topics = new LinkedHashSet<>();
  private int maxPayloadBytes = 1024 * 1024;
  private Duration localTransactionTimeout = Duration.ofSeconds(30);
  private int fenceAfterChecks = 2;
  private Duration fenceAfter = Duration.ofSeconds(30);
  private Duration fenceLockWait = Duration.ofMillis(500);
  private Duration settleLockWait = Duration.ofSeconds(2);
  private Duration republishAfter = Duration.ofMinutes(10);
  private Duration reconcileInterval = Duration.ofSeconds(1);
  private int reconcileBatchSize = 100;
  private int reconcileConcurrency = 8;
  private Duration leaseDuration = Duration.ofSeconds(30);
  private Duration retryBackoffInitial = Duration.ofSeconds(1);
  private Duration retryBackoffMax = Duration.ofMinutes(5);
  private Duration consumeLogRetention = Duration.ofDays(7);
  private DeliveryConfirmation confirmation;
  private boolean brokersDurable = false;
  private DeliveryMode deliveryMode = DeliveryMode.HALF_MESSAGE;
  private Duration publishAfter = Duration.ofSeconds(5);
  private Duration cdcFallbackAfter = Duration.ofSeconds(60);
  private Set<String> publishTopics = new LinkedHashSet<>();
  private int confirmBatchSize = 100;
  private Duration confirmFlushInterval = Duration.ofMillis(20);
  private int sentBatchSize = 200;
  private boolean autoCreateSchema = false;
  private boolean reconcilerEnabled = true;
  private Duration heartbeatInterval = Duration.ofSeconds(5);
  private Duration instanceStaleAfter = Duration.ofSeconds(30);

  /**
   * How to reach the broker (shared with the consumer settings), e.g. {@code
   * BrokerConnection.endpoints("127.0.0.1:8081")}; required unless the builder is given a
   * transport.
   */
  public TxProducerSettings connection(BrokerConnection connection) {
    checkNotSealed();
    this.connection = connection;
    return this;
  }

  /**
   * Identifies this journal (one business database) in every message it sends; check-backs for
   * other stores are answered UNKNOWN, and the confirm group is {@code txmsg-confirm-<storeId>}.
   * Default {@code default}. 1..32 characters of {@code [A-Za-z0-9_-]}.
   */
  public TxProducerSettings storeId(String storeId) {
    checkNotSealed();
    this.storeId = storeId;
    return this;
  }

  /** Table prefix; default {@code txmsg_}. */
  public TxProducerSettings tablePrefix(String tablePrefix) {
    checkNotSealed();
    this.tablePrefix = tablePrefix;
    return this;
  }

  /**
   * Required: the topics of {@code execute}'s events: TRANSACTION topics in {@link
   * DeliveryMode#HALF_MESSAGE} mode, NORMAL or FIFO topics in {@link DeliveryMode#OUTBOX} and
   * {@link DeliveryMode#CDC} mode (checked at build where the transport can tell). The producer
   * declares them to the broker so that their check-backs reach it; a message for another topic is
   * rejected before any side effect.
   */
  public TxProducerSettings topics(String... topics) {
    checkNotSealed();
    this.topics.clear();
    this.topics.addAll(Set.of(topics));
    return this;
  }

  /**
   * NORMAL or FIFO topics that only {@code TxContext.publish} sends to, in either mode (in OUTBOX
   * mode the {@link #topics} are accepted there too). Default none. The confirm group (CONSUMER
   * confirmation) subscribes these as well.
   */
  public TxProducerSettings publishTopics(String... topics) {
    checkNotSealed();
    this.publishTopics.clear();
    this.publishTopics.addAll(Set.of(topics));
    return this;
  }

  /**
   * How {@code execute} publishes its event; default {@link DeliveryMode#HALF_MESSAGE}. Rows record
   * their own mode, so switching a store's mode strands nothing.
   */
  public TxProducerSettings deliveryMode(DeliveryMode mode) {
    checkNotSealed();
    this.deliveryMode = mode;
    return this;
  }

  /**
   * A row sent OUTBOX-style (an OUTBOX producer's events and every {@code TxContext.publish} event)
   * whose immediate send after commit did not happen or failed is sent by the reconciler this long
   * after commit; default 5 s. Short: there is no check-back to wait for. Keep it above a normal
   * send's duration, or the reconciler sends rows whose immediate send is still under way (harmless
   * duplicates).
   */
  public TxProducerSettings publishAfter(Duration d) {
    checkNotSealed();
    this.publishAfter = d;
    return this;
  }

  /**
   * {@link DeliveryMode#CDC}: a row the relay has not recorded SENT this long after it was written
   * is sent by the reconciler, whatever the relay's state (stopped, stuck, started after the row,
   * its log position lost); default 60 s. Keep it well above the relay's normal lag (tens to
   * hundreds of milliseconds) and its takeover time (one relay lease), or the reconciler sends rows
   * the relay is about to send (duplicates, which consumers absorb). The row's due time is fixed
   * when it is written (database clock), so every reconciler of the store honours the writer's
   * value. At least 1 s.
   */
  public TxProducerSettings cdcFallbackAfter(Duration d) {
    checkNotSealed();
    this.cdcFallbackAfter = d;
    return this;
  }

  /** Largest payload accepted, after serialization and sanitizing; default 1 MiB, at most 4 MiB. */
  public TxProducerSettings maxPayloadBytes(int bytes) {
    checkNotSealed();
    this.maxPayloadBytes = bytes;
    return this;
  }

  /** A local transaction running longer than this is rolled back before commit; default 30 s. */
  public TxProducerSettings localTransactionTimeout(Duration d) {
    checkNotSealed();
    this.localTransactionTimeout = d;
    return this;
  }

  /**
   * The check-back fences an attempt with no row only once the broker has checked it at least this
   * often; default 2. (Fencing is safe at any time; waiting avoids fencing slow producers.)
   */
  public TxProducerSettings fenceAfterChecks(int n) {
    checkNotSealed();
    this.fenceAfterChecks = n;
    return this;
  }

  /** When the check count is not reported: fence only half messages older than this; 30 s. */
  public TxProducerSettings fenceAfter(Duration d) {
    checkNotSealed();
    this.fenceAfter = d;
    return this;
  }

  /** Lock wait of the check-back's fencing insert; default 500 ms. */
  public TxProducerSettings fenceLockWait(Duration d) {
    checkNotSealed();
    this.fenceLockWait = d;
    return this;
  }

  /** Lock wait of the producer's ROLLED_BACK settlement insert; default 2 s. */
  public TxProducerSettings settleLockWait(Duration d) {
    checkNotSealed();
    this.settleLockWait = d;
    return this;
  }

  /**
   * A row not confirmed this long after commit (or after its last republish) is republished.
   * Default 10 minutes; keep it above the broker's whole check window (check interval × check max),
   * or rows are republished while the broker still checks them (harmless duplicates).
   */
  public TxProducerSettings republishAfter(Duration d) {
    checkNotSealed();
    this.republishAfter = d;
    return this;
  }

  /**
   * How often this producer instance records a heartbeat in the store (the {@code instance} table,
   * database clock); default 5 s. Other instances of the store use it to tell a hung instance from
   * a live one ({@link #instanceStaleAfter}).
   */
  public TxProducerSettings heartbeatInterval(Duration d) {
    checkNotSealed();
    this.heartbeatInterval = d;
    return this;
  }

  /**
   * An instance of this store whose heartbeat is older than this is taken for hung (a GC pause, an
   * exhausted pool, a stopped process) or dead, and a live instance's reconciler republishes the
   * committed half-message rows it left waiting for their END_TRANSACTION, instead of waiting for
   * the broker's check-backs (which may keep going to the hung instance's open connection) or
   * {@link #republishAfter}. Default 30 s; at least three heartbeat intervals; {@link
   * Duration#ZERO} turns heartbeats and the takeover off.
   *
   * <p>Republishing a committed row is always safe: at worst the event is delivered twice (the hung
   * instance may still commit its half message when it resumes), and consumers deduplicate. So this
   * only trades delivery latency against duplicates: shorter delivers a hung instance's events
   * sooner and takes a long GC pause for a hang more often.
   */
  public TxProducerSettings instanceStaleAfter(Duration d) {
    checkNotSealed();
    this.instanceStaleAfter = d;
    return this;
  }

  /** How often the reconciler looks for due rows; default 1 s. */
  public TxProducerSettings reconcileInterval(Duration d) {
    checkNotSealed();
    this.reconcileInterval = d;
    return this;
  }

  /**
   * Rows claimed at once by the reconciler (1..1000); default 100. Within one interval it claims
   * batch after batch while each comes back full, so this bounds the rows leased at once (two
   * batches), not the rate.
   */
  public TxProducerSettings reconcileBatchSize(int n) {
    checkNotSealed();
    this.reconcileBatchSize = n;
    return this;
  }

  /**
   * Sends the reconciler keeps in flight at once (1..64); default 8. A backlog after an outage
   * drains about this many times faster than one send at a time; FIFO order is kept because a batch
   * claims at most one row per message group and none of a group with a row in flight.
   */
  public TxProducerSettings reconcileConcurrency(int n) {
    checkNotSealed();
    this.reconcileConcurrency = n;
    return this;
  }

  /** Lease of a claimed row; must exceed the request timeout; default 30 s. */
  public TxProducerSettings leaseDuration(Duration d) {
    checkNotSealed();
    this.leaseDuration = d;
    return this;
  }

  /** Republish backoff after transient errors: initial 1 s, doubling, capped at 5 min, ±20 %. */
  public TxProducerSettings retryBackoff(Duration initial, Duration max) {
    checkNotSealed();
    this.retryBackoffInitial = initial;
    this.retryBackoffMax = max;
    return this;
  }

  /**
   * How long consumers keep consume-log rows; a RETRY row older than this (minus 10 %) becomes DEAD
   * with TOO_OLD, since consumers could no longer deduplicate it. Default 7 days.
   */
  public TxProducerSettings consumeLogRetention(Duration d) {
    checkNotSealed();
    this.consumeLogRetention = d;
    return this;
  }

  /**
   * How rows become SENT; default {@link DeliveryConfirmation#CONSUMER} in HALF_MESSAGE mode
   * ({@link DeliveryConfirmation#BROKER_ACK} on the remoting transport when {@link
   * #brokersDurable(boolean) the brokers are declared durable}) and {@link
   * DeliveryConfirmation#SEND_OK} in OUTBOX and CDC mode (read its window). PROXY_ACK and
   * BROKER_ACK are for HALF_MESSAGE only (BROKER_ACK on remoting only), SEND_OK for OUTBOX and CDC;
   * CDC allows SEND_OK only (the relay records SENT from it).
   */
  public TxProducerSettings confirmation(DeliveryConfirmation c) {
    checkNotSealed();
    this.confirmation = c;
    return this;
  }

  /**
   * Declares that every broker of this store keeps what it acknowledged: synchronous flush ({@code
   * flushDiskType=SYNC_FLUSH}) and, where a replica can take over from a master, synchronous
   * replication ({@code brokerRole=SYNC_MASTER}, or a quorum). txmsg cannot check this from the
   * client; it is the operator's statement. Default false.
   *
   * <p>What it changes: a HALF_MESSAGE store on the remoting transport then defaults to {@link
   * DeliveryConfirmation#BROKER_ACK} (SENT from the broker's answer to a synchronous commit, no
   * confirm group) instead of {@link DeliveryConfirmation#CONSUMER}. Nothing else: an explicit
   * {@link #confirmation} wins, and over gRPC the default stays CONSUMER (the proxy commits oneway,
   * so there is no broker answer to read).
   */
  public TxProducerSettings brokersDurable(boolean b) {
    checkNotSealed();
    this.brokersDurable = b;
    return this;
  }

  /** Whether the store's brokers are declared durable ({@link #brokersDurable(boolean)}). */
  public boolean brokersDurable() {
    return brokersDurable;
  }

  /**
   * Confirmations per SENT update (100) and the longest wait to fill a batch (20 ms). The confirm
   * group receives up to 32 messages per call and keeps receiving while calls come back full, until
   * the batch has {@code size} messages or {@code flushInterval} has passed.
   */
  public TxProducerSettings confirmBatching(int size, Duration flushInterval) {
    checkNotSealed();
    this.confirmBatchSize = size;
    this.confirmFlushInterval = flushInterval;
    return this;
  }

  /**
   * The most rows one statement records after the broker's acknowledgement (200): the SEND_OKs of
   * immediate sends and, under {@link DeliveryConfirmation#PROXY_ACK}, the SENT of committed half
   * messages are queued and recorded off the caller's thread, one transaction per queued batch, one
   * set-based UPDATE per {@code size} rows. 1..1000. {@code 1} restores the per-row form: one
   * UPDATE per row, and under PROXY_ACK a second transaction on the caller's thread, so the row is
   * SENT when {@code execute} returns (it costs the caller a commit per event). A record lost
   * (queue full, crash) leaves the row PENDING: the reconciler sends it again after {@code
   * republishAfter}, a duplicate consumers absorb.
   */
  public TxProducerSettings sentBatchSize(int size) {
    checkNotSealed();
    this.sentBatchSize = size;
    return this;
  }

  /** Create the tables at start when missing; default false (apply the shipped SQL files). */
  public TxProducerSettings autoCreateSchema(boolean b) {
    checkNotSealed();
    this.autoCreateSchema = b;
    return this;
  }

  /** Run the reconciler in this instance; default true. */
  public TxProducerSettings reconcilerEnabled(boolean b) {
    checkNotSealed();
    this.reconcilerEnabled = b;
    return this;
  }

  /** Checks every setting; the message names the first bad one. */
  @Override
  public void validate() {
    require(connection != null, "connection", "is required");
    require(
        storeId != null && storeId.matches("[A-Za-z0-9_\\-]{1,32}"),
        "storeId",
        "must be 1..32 characters of [A-Za-z0-9_-], was " + LogSafe.quote(storeId));
    TablePrefix.validate(tablePrefix);
    require(deliveryMode != null, "deliveryMode", "is required");
    require(
        !topics.isEmpty(),
        "topics",
        deliveryMode != DeliveryMode.HALF_MESSAGE
            ? "needs at least one NORMAL or FIFO topic"
            : "needs at least one TRANSACTION topic");
    String refused = ConfirmationChoice.refusal(deliveryMode, confirmation(), connection);
    require(refused == null, "confirmation", refused);
    positive("publishAfter", publishAfter);
    require(
        cdcFallbackAfter != null && cdcFallbackAfter.compareTo(Duration.ofSeconds(1)) >= 0,
        "cdcFallbackAfter",
        "must be at least 1 s (above the CDC relay's normal lag), was " + cdcFallbackAfter);
    require(
        maxPayloadBytes > 0 && maxPayloadBytes <= BROKER_MAX_BODY_BYTES,
        "maxPayloadBytes",
        "must be 1.." + BROKER_MAX_BODY_BYTES + ", was " + maxPayloadBytes);
    require(fenceAfterChecks >= 1, "fenceAfterChecks", "must be >= 1");
    positive("localTransactionTimeout", localTransactionTimeout);
    positive("fenceAfter", fenceAfter);
    positive("fenceLockWait", fenceLockWait);
    positive("settleLockWait", settleLockWait);
    positive("republishAfter", republishAfter);
    positive("reconcileInterval", reconcileInterval);
    positive("heartbeatInterval", heartbeatInterval);
    require(
        instanceStaleAfter != null
            && (instanceStaleAfter.isZero()
                || instanceStaleAfter.compareTo(heartbeatInterval.multipliedBy(3)) >= 0),
        "instanceStaleAfter",
        "must be 0 (off) or at least three heartbeatIntervals ("
            + heartbeatInterval.multipliedBy(3)
            + "), was "
            + instanceStaleAfter
            + ": fewer lets one slow beat look like a hung instance");
    positive("retryBackoffInitial", retryBackoffInitial);
    positive("confirmFlushInterval", confirmFlushInterval);
    require(
        leaseDuration.compareTo(connection.requestTimeout().multipliedBy(2)) > 0,
        "leaseDuration",
        "must exceed twice the connection's requestTimeout (a send may take that long)");
    require(
        retryBackoffMax.compareTo(retryBackoffInitial) >= 0,
        "retryBackoff",
        "max must not be below initial");
    require(
        reconcileBatchSize >= 1 && reconcileBatchSize <= 1000,
        "reconcileBatchSize",
        "must be 1..1000");
    require(
        reconcileConcurrency >= 1 && reconcileConcurrency <= 64,
        "reconcileConcurrency",
        "must be 1..64");
    require(
        confirmBatchSize >= 1 && confirmBatchSize <= 1000, "confirmBatchSize", "must be 1..1000");
    require(sentBatchSize >= 1 && sentBatchSize <= 1000, "sentBatchSize", "must be 1..1000");
    require(
        consumeLogRetention.compareTo(republishAfter.multipliedBy(2)) > 0,
        "consumeLogRetention",
        "must exceed twice republishAfter");
  }

  /** A validated copy that refuses changes: what a running producer reads. */
  TxProducerSettings sealedCopy() {
    return validatedSealedCopy();
  }

  /** An unsealed copy, e.g. to configure a second producer like this one. */
  @Override
  public TxProducerSettings copy() {
    TxProducerSettings c = unsealedClone();
    c.topics = new LinkedHashSet<>(topics);
    c.publishTopics = new LinkedHashSet<>(publishTopics);
    return c;
  }

  @Override
  protected String component() {
    return "producer";
  }

  public BrokerConnection connection() {
    return connection;
  }

  public String storeId() {
    return storeId;
  }

  public String tablePrefix() {
    return tablePrefix;
  }

  public Set<String> topics() {
    return Set.copyOf(topics);
  }

  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  public Duration localTransactionTimeout() {
    return localTransactionTimeout;
  }

  public int fenceAfterChecks() {
    return fenceAfterChecks;
  }

  public Duration fenceAfter() {
    return fenceAfter;
  }

  public Duration fenceLockWait() {
    return fenceLockWait;
  }

  public Duration settleLockWait() {
    return settleLockWait;
  }

  public Duration republishAfter() {
    return republishAfter;
  }

  public Duration reconcileInterval() {
    return reconcileInterval;
  }

  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  public Duration instanceStaleAfter() {
    return instanceStaleAfter;
  }

  /** True when instances beat and a live one takes over a hung one's rows. */
  public boolean instanceTakeoverEnabled() {
    return !instanceStaleAfter.isZero();
  }

  public int reconcileBatchSize() {
    return reconcileBatchSize;
  }

  public int reconcileConcurrency() {
    return reconcileConcurrency;
  }

  public Duration leaseDuration() {
    return leaseDuration;
  }

  public Duration retryBackoffInitial() {
    return retryBackoffInitial;
  }

  public Duration retryBackoffMax() {
    return retryBackoffMax;
  }

  public Duration consumeLogRetention() {
    return consumeLogRetention;
  }

  public DeliveryConfirmation confirmation() {
    return confirmation != null
        ? confirmation
        : ConfirmationChoice.defaultFor(deliveryMode, brokersDurable, connection);
  }

  public DeliveryMode deliveryMode() {
    return deliveryMode;
  }

  public Duration publishAfter() {
    return publishAfter;
  }

  public Duration cdcFallbackAfter() {
    return cdcFallbackAfter;
  }

  /**
   * How long after it is written a row of {@code mode} becomes the reconciler's: cdcFallbackAfter
   * for a CDC row (the relay sends it), publishAfter for a row sent after commit.
   */
  long firstDueAfterMillis(PublishMode mode) {
    return (mode == PublishMode.CDC ? cdcFallbackAfter : publishAfter).toMillis();
  }

  /** The topics only {@code TxContext.publish} sends to. */
  public Set<String> publishTopics() {
    return Set.copyOf(publishTopics);
  }

  /** Every topic this store sends to: {@link #topics} and {@link #publishTopics}. */
  public Set<String> allTopics() {
    Set<String> all = new LinkedHashSet<>(topics);
    all.addAll(publishTopics);
    return Set.copyOf(all);
  }

  /** Whether {@code TxContext.publish} may send to {@code topic}. */
  boolean publishable(String topic) {
    return publishTopics.contains(topic)
        || (deliveryMode != DeliveryMode.HALF_MESSAGE && topics.contains(topic));
  }

  public int confirmBatchSize() {
    return confirmBatchSize;
  }

  public int sentBatchSize() {
    return sentBatchSize;
  }

  public Duration confirmFlushInterval() {
    return confirmFlushInterval;
  }

  public boolean autoCreateSchema() {
    return autoCreateSchema;
  }

  public boolean reconcilerEnabled() {
    return reconcilerEnabled;
  }

  /** The consumer group that confirms this store's deliveries. */
  public String confirmGroup() {
    return "txmsg-confirm-" + storeId;
  }

  @Override
  public String toString() {
    return "TxProducerSettings{"
        + connection
        + ", storeId="
        + storeId
        + ", topics="
        + topics
        + ", deliveryMode="
        + deliveryMode
        + ", confirmation="
        + confirmation()
        + (brokersDurable ? ", brokersDurable" : "")
        + ", publishAfter="
        + publishAfter
        + (deliveryMode == DeliveryMode.CDC ? ", cdcFallbackAfter=" + cdcFallbackAfter : "")
        + ", publishTopics="
        + publishTopics
        + ", republishAfter="
        + republishAfter
        + "}";
  }
}
