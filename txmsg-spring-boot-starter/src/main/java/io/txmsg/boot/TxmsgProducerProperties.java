package io.txmsg.boot;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import io.txmsg.boot.TxmsgProperties.JsonMapperChoice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Binds {@code txmsg.producer.*}: the producer (TxMessageTemplate, journal, check-back,
 * reconciler).
 */
public class TxmsgProducerProperties {
  /**
   * Whether to start the producer. Unset: when txmsg.producer.topics is set (or the application
   * defines a TxProducerSettings bean).
   */
  private Boolean enabled;

  /**
   * Topics of execute's events: TRANSACTION topics (HALF_MESSAGE) or NORMAL/FIFO topics (OUTBOX).
   * Setting them starts the producer.
   */
  private List<String> topics = new ArrayList<>();

  /** NORMAL or FIFO topics that only TxContext.publish sends to. */
  private List<String> publishTopics = new ArrayList<>();

  /**
   * Identifies this journal in every message (the confirm group is txmsg-confirm- followed by it):
   * 1..32 of [A-Za-z0-9_-]. Default: spring.application.name; with neither set the start fails.
   */
  private String storeId;

  /** Prefix of the txmsg tables. */
  private String tablePrefix = "txmsg_";

  /** How execute publishes its event. */
  private DeliveryMode deliveryMode = DeliveryMode.HALF_MESSAGE;

  /**
   * How rows become SENT. Default: CONSUMER with HALF_MESSAGE (BROKER_ACK over remoting when
   * brokers-durable is true), SEND_OK with OUTBOX and CDC.
   */
  private DeliveryConfirmation confirmation;

  /**
   * Declares that the store's brokers keep what they acknowledge (SYNC_FLUSH, and synchronous
   * replication where a replica can take over). Over remoting a HALF_MESSAGE store then defaults to
   * BROKER_ACK confirmation (no confirm group).
   */
  private boolean brokersDurable = false;

  /**
   * A row sent OUTBOX-style whose send right after commit did not happen is sent this long after
   * commit.
   */
  private Duration publishAfter = Duration.ofSeconds(5);

  /**
   * delivery-mode CDC: a row the CDC relay has not recorded SENT this long after it was written is
   * sent by the reconciler, whatever the relay's state (at least 1 s; keep it above the relay's
   * normal lag).
   */
  private Duration cdcFallbackAfter = Duration.ofSeconds(60);

  /** Largest payload accepted after serialization and sanitizing (at most 4 MiB). */
  private int maxPayloadBytes = 1048576;

  /** A local transaction running longer is rolled back before commit. */
  private Duration localTransactionTimeout = Duration.ofSeconds(30);

  /** The check-back fences an attempt with no row only after the broker checked it this often. */
  private int fenceAfterChecks = 2;

  /** When the check count is not reported: fence only half messages older than this. */
  private Duration fenceAfter = Duration.ofSeconds(30);

  /** Lock wait of the check-back's fencing insert. */
  private Duration fenceLockWait = Duration.ofMillis(500);

  /** Lock wait of the producer's ROLLED_BACK settlement insert. */
  private Duration settleLockWait = Duration.ofSeconds(2);

  /**
   * A row unconfirmed this long after commit is republished; keep it above the broker's check
   * window.
   */
  private Duration republishAfter = Duration.ofMinutes(10);

  /** How often the reconciler looks for due rows. */
  private Duration reconcileInterval = Duration.ofSeconds(1);

  /** How often this producer instance records its heartbeat in the store (database clock). */
  private Duration heartbeatInterval = Duration.ofSeconds(5);

  /**
   * An instance of the store silent this long is taken for hung: a live instance republishes its
   * committed, unconfirmed half-message rows (duplicates possible, never a loss). At least three
   * heartbeat intervals; 0 turns the heartbeat and the takeover off.
   */
  private Duration instanceStaleAfter = Duration.ofSeconds(30);

  /** Rows claimed at once by the reconciler (1..1000). */
  private int reconcileBatchSize = 100;

  /** Sends the reconciler keeps in flight at once (1..64). */
  private int reconcileConcurrency = 8;

  /**
   * Most rows one statement records SENT (or awaiting confirmation) after the broker's
   * acknowledgement, off the caller's thread (1..1000); 1: one UPDATE per row and, under PROXY_ACK,
   * a second transaction on the caller's thread.
   */
  private int sentBatchSize = 200;

  /** Lease of a claimed row; must exceed twice the request timeout. */
  private Duration leaseDuration = Duration.ofSeconds(30);

  /**
   * How long consumers keep consume-log rows; RETRY rows older than 90 % of it become DEAD
   * (TOO_OLD).
   */
  private Duration consumeLogRetention = Duration.ofDays(7);

  /**
   * Create or upgrade the txmsg tables at startup (else apply the shipped SQL, txmsg schema apply
   * or the Flyway copies).
   */
  private boolean autoCreateSchema = false;

  /** Run the reconciler in this instance. */
  private boolean reconcilerEnabled = true;

  /**
   * Which JSON mapper writes payload objects: TXMSG (txmsg's own Jackson 2 mapper: the bytes of
   * earlier releases) or APPLICATION (the application's Jackson 3 JsonMapper).
   */
  private JsonMapperChoice jsonMapper = JsonMapperChoice.TXMSG;

  /** Republish backoff after transient errors: initial, doubling, capped at max, ±20 % jitter. */
  @NestedConfigurationProperty
  private final TxmsgBackoffProperties retryBackoff = new TxmsgBackoffProperties();

  /** Batching of delivery confirmations (CONSUMER confirmation). */
  private final ConfirmBatching confirmBatching = new ConfirmBatching();

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getTopics() {
    return topics;
  }

  public void setTopics(List<String> topics) {
    this.topics = topics;
  }

  public List<String> getPublishTopics() {
    return publishTopics;
  }

  public void setPublishTopics(List<String> publishTopics) {
    this.publishTopics = publishTopics;
  }

  public String getStoreId() {
    return storeId;
  }

  public void setStoreId(String storeId) {
    this.storeId = storeId;
  }

  public String getTablePrefix() {
    return tablePrefix;
  }

  public void setTablePrefix(String tablePrefix) {
    this.tablePrefix = tablePrefix;
  }

  public DeliveryMode getDeliveryMode() {
    return deliveryMode;
  }

  public void setDeliveryMode(DeliveryMode deliveryMode) {
    this.deliveryMode = deliveryMode;
  }

  public DeliveryConfirmation getConfirmation() {
    return confirmation;
  }

  public void setConfirmation(DeliveryConfirmation confirmation) {
    this.confirmation = confirmation;
  }

  public boolean isBrokersDurable() {
    return brokersDurable;
  }

  public void setBrokersDurable(boolean brokersDurable) {
    this.brokersDurable = brokersDurable;
  }

  public Duration getPublishAfter() {
    return publishAfter;
  }

  public void setPublishAfter(Duration publishAfter) {
    this.publishAfter = publishAfter;
  }

  public Duration getCdcFallbackAfter() {
    return cdcFallbackAfter;
  }

  public void setCdcFallbackAfter(Duration cdcFallbackAfter) {
    this.cdcFallbackAfter = cdcFallbackAfter;
  }

  public int getMaxPayloadBytes() {
    return maxPayloadBytes;
  }

  public void setMaxPayloadBytes(int maxPayloadBytes) {
    this.maxPayloadBytes = maxPayloadBytes;
  }

  public Duration getLocalTransactionTimeout() {
    return localTransactionTimeout;
  }

  public void setLocalTransactionTimeout(Duration localTransactionTimeout) {
    this.localTransactionTimeout = localTransactionTimeout;
  }

  public int getFenceAfterChecks() {
    return fenceAfterChecks;
  }

  public void setFenceAfterChecks(int fenceAfterChecks) {
    this.fenceAfterChecks = fenceAfterChecks;
  }

  public Duration getFenceAfter() {
    return fenceAfter;
  }

  public void setFenceAfter(Duration fenceAfter) {
    this.fenceAfter = fenceAfter;
  }

  public Duration getFenceLockWait() {
    return fenceLockWait;
  }

  public void setFenceLockWait(Duration fenceLockWait) {
    this.fenceLockWait = fenceLockWait;
  }

  public Duration getSettleLockWait() {
    return settleLockWait;
  }

  public void setSettleLockWait(Duration settleLockWait) {
    this.settleLockWait = settleLockWait;
  }

  public Duration getRepublishAfter() {
    return republishAfter;
  }

  public void setRepublishAfter(Duration republishAfter) {
    this.republishAfter = republishAfter;
  }

  public Duration getReconcileInterval() {
    return reconcileInterval;
  }

  public void setReconcileInterval(Duration reconcileInterval) {
    this.reconcileInterval = reconcileInterval;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getInstanceStaleAfter() {
    return instanceStaleAfter;
  }

  public void setInstanceStaleAfter(Duration instanceStaleAfter) {
    this.instanceStaleAfter = instanceStaleAfter;
  }

  public int getReconcileBatchSize() {
    return reconcileBatchSize;
  }

  public void setReconcileBatchSize(int reconcileBatchSize) {
    this.reconcileBatchSize = reconcileBatchSize;
  }

  public int getSentBatchSize() {
    return sentBatchSize;
  }

  public void setSentBatchSize(int sentBatchSize) {
    this.sentBatchSize = sentBatchSize;
  }

  public int getReconcileConcurrency() {
    return reconcileConcurrency;
  }

  public void setReconcileConcurrency(int reconcileConcurrency) {
    this.reconcileConcurrency = reconcileConcurrency;
  }

  public Duration getLeaseDuration() {
    return leaseDuration;
  }

  public void setLeaseDuration(Duration leaseDuration) {
    this.leaseDuration = leaseDuration;
  }

  public Duration getConsumeLogRetention() {
    return consumeLogRetention;
  }

  public void setConsumeLogRetention(Duration consumeLogRetention) {
    this.consumeLogRetention = consumeLogRetention;
  }

  public boolean isAutoCreateSchema() {
    return autoCreateSchema;
  }

  public void setAutoCreateSchema(boolean autoCreateSchema) {
    this.autoCreateSchema = autoCreateSchema;
  }

  public boolean isReconcilerEnabled() {
    return reconcilerEnabled;
  }

  public void setReconcilerEnabled(boolean reconcilerEnabled) {
    this.reconcilerEnabled = reconcilerEnabled;
  }

  public JsonMapperChoice getJsonMapper() {
    return jsonMapper;
  }

  public void setJsonMapper(JsonMapperChoice jsonMapper) {
    this.jsonMapper = jsonMapper;
  }

  public TxmsgBackoffProperties getRetryBackoff() {
    return retryBackoff;
  }

  public ConfirmBatching getConfirmBatching() {
    return confirmBatching;
  }

  /** Confirmation batching. */
  public static class ConfirmBatching {
    /** Confirmations per SENT update (1..1000). */
    private int size = 100;

    /** Longest wait to fill a batch. */
    private Duration flushInterval = Duration.ofMillis(20);

    public int getSize() {
      return size;
    }

    public void setSize(int size) {
      this.size = size;
    }

    public Duration getFlushInterval() {
      return flushInterval;
    }

    public void setFlushInterval(Duration flushInterval) {
      this.flushInterval = flushInterval;
    }
  }
}
