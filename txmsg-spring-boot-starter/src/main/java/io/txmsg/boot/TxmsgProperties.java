package io.txmsg.boot;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The {@code txmsg.*} properties of a Spring Boot application: one property per public setting of
 * {@code TxProducerSettings}, {@code TxConsumerSettings} and {@code ConsumerGroupConfig}, with the
 * same defaults (TxmsgPropertiesCoverageTest holds the two together), plus the starter's own
 * ({@code enabled}, {@code json-mapper}, {@code txmsg.broker.fail-fast}, health, Flyway). A
 * property that is not one of these fails the start ({@code ignoreUnknownFields = false}): a typo
 * or a removed property is never silently ignored.
 */
@ConfigurationProperties(prefix = "txmsg", ignoreUnknownFields = false)
public class TxmsgProperties {
  private final Broker broker = new Broker();
  private final Producer producer = new Producer();
  private final Consumer consumer = new Consumer();
  private final Health health = new Health();
  private final Flyway flyway = new Flyway();
  private final Liquibase liquibase = new Liquibase();
  @NestedConfigurationProperty private final TxmsgCdcProperties cdc = new TxmsgCdcProperties();

  public Broker getBroker() {
    return broker;
  }

  public Producer getProducer() {
    return producer;
  }

  public Consumer getConsumer() {
    return consumer;
  }

  public Health getHealth() {
    return health;
  }

  public Flyway getFlyway() {
    return flyway;
  }

  public Liquibase getLiquibase() {
    return liquibase;
  }

  /** {@code txmsg.cdc.*}: the CDC relay (with txmsg-cdc on the class path). */
  public TxmsgCdcProperties getCdc() {
    return cdc;
  }

  /** Which JSON mapper turns payload objects into bytes or back. */
  public enum JsonMapperChoice {
    /** txmsg's own Jackson 2 mapper ({@code JsonPayloadSerializer}). */
    TXMSG,
    /** The application's Jackson 3 {@code JsonMapper} bean, when Spring Boot provides one. */
    APPLICATION
  }

  /** How to reach RocketMQ; shared by the producer and the consumers. */
  public static class Broker {
    /**
     * gRPC endpoint(s) of a RocketMQ 5 proxy, e.g. 127.0.0.1:8081 (needs txmsg-rocketmq). Set this
     * or name-server.
     */
    private String endpoints;

    /**
     * NameServer address(es), e.g. ns1:9876;ns2:9876 (remoting; needs txmsg-rocketmq-remoting). Set
     * this or endpoints.
     */
    private String nameServer;

    /** ACL access key; needs secret-key. */
    private String accessKey;

    /** ACL secret key; needs access-key. Never logged. */
    private String secretKey;

    /** Whether to use TLS. Default: true for endpoints (gRPC), false for name-server. */
    private Boolean tls;

    /** Client request timeout (sends, commits, receives). */
    private Duration requestTimeout = Duration.ofSeconds(3);

    /**
     * Fail the start when the broker cannot be reached. Off: the application starts, execute throws
     * TransportException and the consumers wait until the broker answers.
     */
    private boolean failFast = false;

    /**
     * Pause between two attempts to start the producer or the consumers while the broker cannot be
     * reached.
     */
    private Duration connectRetryInterval = Duration.ofSeconds(5);

    public String getEndpoints() {
      return endpoints;
    }

    public void setEndpoints(String endpoints) {
      this.endpoints = endpoints;
    }

    public String getNameServer() {
      return nameServer;
    }

    public void setNameServer(String nameServer) {
      this.nameServer = nameServer;
    }

    public String getAccessKey() {
      return accessKey;
    }

    public void setAccessKey(String accessKey) {
      this.accessKey = accessKey;
    }

    public String getSecretKey() {
      return secretKey;
    }

    public void setSecretKey(String secretKey) {
      this.secretKey = secretKey;
    }

    public Boolean getTls() {
      return tls;
    }

    public void setTls(Boolean tls) {
      this.tls = tls;
    }

    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }

    public boolean isFailFast() {
      return failFast;
    }

    public void setFailFast(boolean failFast) {
      this.failFast = failFast;
    }

    public Duration getConnectRetryInterval() {
      return connectRetryInterval;
    }

    public void setConnectRetryInterval(Duration connectRetryInterval) {
      this.connectRetryInterval = connectRetryInterval;
    }
  }

  /** The producer: TxMessageTemplate, journal, check-back, reconciler. */
  public static class Producer {
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
     * Identifies this journal in every message (the confirm group is txmsg-confirm- followed by
     * it): 1..32 of [A-Za-z0-9_-]. Default: spring.application.name; with neither set the start
     * fails.
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
     * replication where a replica can take over). Over remoting a HALF_MESSAGE store then defaults
     * to BROKER_ACK confirmation (no confirm group).
     */
    private boolean brokersDurable = false;

    /**
     * A row sent OUTBOX-style whose send right after commit did not happen is sent this long after
     * commit.
     */
    private Duration publishAfter = Duration.ofSeconds(5);

    /**
     * delivery-mode CDC: a row the CDC relay has not recorded SENT this long after it was written
     * is sent by the reconciler, whatever the relay's state (at least 1 s; keep it above the
     * relay's normal lag).
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
     * acknowledgement, off the caller's thread (1..1000); 1: one UPDATE per row and, under
     * PROXY_ACK, a second transaction on the caller's thread.
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
    private final RetryBackoff retryBackoff = new RetryBackoff();

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

    public RetryBackoff getRetryBackoff() {
      return retryBackoff;
    }

    public ConfirmBatching getConfirmBatching() {
      return confirmBatching;
    }
  }

  /** A republish backoff. */
  public static class RetryBackoff {
    /** First delay. */
    private Duration initial = Duration.ofSeconds(1);

    /** Largest delay. */
    private Duration max = Duration.ofMinutes(5);

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
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

  /** The consumers: every @TxMessageHandler bean method. */
  public static class Consumer {
    /**
     * Whether to start the consumers. Unset: when a group is configured under txmsg.consumer.groups
     * (or the application defines a TxConsumerSettings bean).
     */
    private Boolean enabled;

    /** Prefix of the txmsg tables. */
    private String tablePrefix = "txmsg_";

    /**
     * Create or upgrade the txmsg tables at startup (else apply the shipped SQL, txmsg schema apply
     * or the Flyway copies).
     */
    private boolean autoCreateSchema = false;

    /** Consumption threads per group, unless the group sets its own. */
    private int threads = 8;

    /**
     * How long consume-log rows are kept; events born before retention minus too-old-margin are
     * parked TOO_OLD.
     */
    private Duration consumeLogRetention = Duration.ofDays(7);

    /**
     * See consume-log-retention; keep it above the clock skew between producer and consumer hosts.
     */
    private Duration tooOldMargin = Duration.ofDays(1);

    /** How often the command outbox dispatcher looks for due commands. */
    private Duration commandPollInterval = Duration.ofMillis(500);

    /** Commands claimed at once by the dispatcher. */
    private int commandBatchSize = 50;

    /** How long a claimed command belongs to one dispatcher. */
    private Duration commandLease = Duration.ofSeconds(30);

    /** Attempts of a command before it is parked. */
    private int commandMaxAttempts = 10;

    /** How long startup waits for the broker to announce a group's retry policy. */
    private Duration retryPolicyWait = Duration.ofSeconds(10);

    /**
     * Which JSON mapper reads payloads: APPLICATION (the application's Jackson 3 JsonMapper when
     * Spring Boot provides one, unknown properties ignored) or TXMSG (txmsg's own Jackson 2
     * mapper).
     */
    private JsonMapperChoice jsonMapper = JsonMapperChoice.APPLICATION;

    /**
     * Consumer groups by name, each with the topics it subscribes. Setting one starts the
     * consumers.
     */
    private Map<String, Group> groups = new LinkedHashMap<>();

    /** Backoff between command attempts: initial, doubling, capped at max. */
    private final CommandBackoff commandBackoff = new CommandBackoff();

    /** Draining the broker's dead-letter queue into the dead_letter table. */
    private final DlqDrain dlqDrain = new DlqDrain();

    /** The worker that runs txmsg replay requests for this application's groups. */
    private final ReplayWorker replayWorker = new ReplayWorker();

    /** Leased delivery over gRPC: on when lease is set. */
    private final LeasedDelivery leasedDelivery = new LeasedDelivery();

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public String getTablePrefix() {
      return tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
      this.tablePrefix = tablePrefix;
    }

    public boolean isAutoCreateSchema() {
      return autoCreateSchema;
    }

    public void setAutoCreateSchema(boolean autoCreateSchema) {
      this.autoCreateSchema = autoCreateSchema;
    }

    public int getThreads() {
      return threads;
    }

    public void setThreads(int threads) {
      this.threads = threads;
    }

    public Duration getConsumeLogRetention() {
      return consumeLogRetention;
    }

    public void setConsumeLogRetention(Duration consumeLogRetention) {
      this.consumeLogRetention = consumeLogRetention;
    }

    public Duration getTooOldMargin() {
      return tooOldMargin;
    }

    public void setTooOldMargin(Duration tooOldMargin) {
      this.tooOldMargin = tooOldMargin;
    }

    public Duration getCommandPollInterval() {
      return commandPollInterval;
    }

    public void setCommandPollInterval(Duration commandPollInterval) {
      this.commandPollInterval = commandPollInterval;
    }

    public int getCommandBatchSize() {
      return commandBatchSize;
    }

    public void setCommandBatchSize(int commandBatchSize) {
      this.commandBatchSize = commandBatchSize;
    }

    public Duration getCommandLease() {
      return commandLease;
    }

    public void setCommandLease(Duration commandLease) {
      this.commandLease = commandLease;
    }

    public int getCommandMaxAttempts() {
      return commandMaxAttempts;
    }

    public void setCommandMaxAttempts(int commandMaxAttempts) {
      this.commandMaxAttempts = commandMaxAttempts;
    }

    public Duration getRetryPolicyWait() {
      return retryPolicyWait;
    }

    public void setRetryPolicyWait(Duration retryPolicyWait) {
      this.retryPolicyWait = retryPolicyWait;
    }

    public JsonMapperChoice getJsonMapper() {
      return jsonMapper;
    }

    public void setJsonMapper(JsonMapperChoice jsonMapper) {
      this.jsonMapper = jsonMapper;
    }

    public Map<String, Group> getGroups() {
      return groups;
    }

    public void setGroups(Map<String, Group> groups) {
      this.groups = groups;
    }

    public CommandBackoff getCommandBackoff() {
      return commandBackoff;
    }

    public DlqDrain getDlqDrain() {
      return dlqDrain;
    }

    public ReplayWorker getReplayWorker() {
      return replayWorker;
    }

    public LeasedDelivery getLeasedDelivery() {
      return leasedDelivery;
    }
  }

  /** One consumer group. */
  public static class Group {
    /** Topics the group subscribes (tag filter *, unless tags names one). */
    private List<String> topics = new ArrayList<>();

    /** Tag expression per topic, e.g. pay: "paid || refunded" (default *). */
    private Map<String, String> tags = new LinkedHashMap<>();

    /** Event types acknowledged without a handler (never parked). */
    private List<String> ignore = new ArrayList<>();

    /** Consumption threads of this group; 0: txmsg.consumer.threads. */
    private int threads = 0;

    /** Deliveries of an event without a local handler before it is parked (NO_HANDLER). */
    private int maxAttempts = 16;

    public List<String> getTopics() {
      return topics;
    }

    public void setTopics(List<String> topics) {
      this.topics = topics;
    }

    public Map<String, String> getTags() {
      return tags;
    }

    public void setTags(Map<String, String> tags) {
      this.tags = tags;
    }

    public List<String> getIgnore() {
      return ignore;
    }

    public void setIgnore(List<String> ignore) {
      this.ignore = ignore;
    }

    public int getThreads() {
      return threads;
    }

    public void setThreads(int threads) {
      this.threads = threads;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }
  }

  /** A command backoff. */
  public static class CommandBackoff {
    /** First delay. */
    private Duration initial = Duration.ofSeconds(1);

    /** Largest delay. */
    private Duration max = Duration.ofMinutes(5);

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
  }

  /** Draining the broker's dead-letter queue. */
  public static class DlqDrain {
    /**
     * Whether to drain the group's dead-letter queue (%DLQ% and the group name) into the
     * dead_letter table (reason BROKER_DLQ).
     */
    private boolean enabled = true;

    /** Pause after a failed drain round. */
    private Duration retryInterval = Duration.ofSeconds(30);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getRetryInterval() {
      return retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
      this.retryInterval = retryInterval;
    }
  }

  /** The replay worker. */
  public static class ReplayWorker {
    /** Whether this instance runs replay requests. */
    private boolean enabled = true;

    /** How often it looks for requests. */
    private Duration pollInterval = Duration.ofSeconds(2);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }
  }

  /**
   * Leased delivery (gRPC transport): a crashed consumer's in-flight events come back to another
   * instance after at most one lease instead of the broker's channel expiry (120 s by default).
   */
  public static class LeasedDelivery {
    /**
     * How long a received message stays hidden from other instances, renewed while held (at least
     * 10s). Unset: off.
     */
    private Duration lease;

    /** Delay before the second delivery attempt of a failed event. */
    private Duration retryInitial = Duration.ofSeconds(1);

    /** Largest delay between delivery attempts. */
    private Duration retryMax = Duration.ofMinutes(1);

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public Duration getRetryInitial() {
      return retryInitial;
    }

    public void setRetryInitial(Duration retryInitial) {
      this.retryInitial = retryInitial;
    }

    public Duration getRetryMax() {
      return retryMax;
    }

    public void setRetryMax(Duration retryMax) {
      this.retryMax = retryMax;
    }
  }

  /** The "txmsg" health indicator: UP however large the backlog unless a threshold is set. */
  public static class Health {
    /** Report DOWN when the journal has more DEAD rows than this. Unset: never. */
    private Long downWhenDeadRowsAbove;

    /** Report DOWN when PARKED dead letters (all groups) are more than this. Unset: never. */
    private Long downWhenParkedAbove;

    /** Report DOWN when the oldest unconfirmed journal row is older than this. Unset: never. */
    private Duration downWhenOldestUnconfirmedAbove;

    /**
     * Report DOWN when no broker address accepts a TCP connection. Off: a broker outage would take
     * every instance out of service at once, while txmsg keeps the events in the journal.
     */
    private boolean downWhenBrokerUnreachable = false;

    /** Probe the broker addresses (a TCP connect, nothing sent) on each health check. */
    private boolean brokerProbe = true;

    /** How long one address may take to accept the probe's connection. */
    private Duration brokerProbeTimeout = Duration.ofSeconds(1);

    public Long getDownWhenDeadRowsAbove() {
      return downWhenDeadRowsAbove;
    }

    public void setDownWhenDeadRowsAbove(Long downWhenDeadRowsAbove) {
      this.downWhenDeadRowsAbove = downWhenDeadRowsAbove;
    }

    public Long getDownWhenParkedAbove() {
      return downWhenParkedAbove;
    }

    public void setDownWhenParkedAbove(Long downWhenParkedAbove) {
      this.downWhenParkedAbove = downWhenParkedAbove;
    }

    public Duration getDownWhenOldestUnconfirmedAbove() {
      return downWhenOldestUnconfirmedAbove;
    }

    public void setDownWhenOldestUnconfirmedAbove(Duration downWhenOldestUnconfirmedAbove) {
      this.downWhenOldestUnconfirmedAbove = downWhenOldestUnconfirmedAbove;
    }

    public boolean isDownWhenBrokerUnreachable() {
      return downWhenBrokerUnreachable;
    }

    public void setDownWhenBrokerUnreachable(boolean downWhenBrokerUnreachable) {
      this.downWhenBrokerUnreachable = downWhenBrokerUnreachable;
    }

    public boolean isBrokerProbe() {
      return brokerProbe;
    }

    public void setBrokerProbe(boolean brokerProbe) {
      this.brokerProbe = brokerProbe;
    }

    public Duration getBrokerProbeTimeout() {
      return brokerProbeTimeout;
    }

    public void setBrokerProbeTimeout(Duration brokerProbeTimeout) {
      this.brokerProbeTimeout = brokerProbeTimeout;
    }
  }

  /** txmsg's own Flyway migrations. */
  public static class Flyway {
    /**
     * Run txmsg's Flyway migrations (io/txmsg/store/flyway per database, history table
     * flyway_txmsg_history for the default table prefix) before the txmsg beans start, when Flyway
     * is on the class path.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** txmsg's own Liquibase changelog. */
  public static class Liquibase {
    /**
     * Run txmsg's Liquibase changelog (io/txmsg/store/liquibase/txmsg-changelog.xml, history tables
     * liquibase_txmsg_changelog and liquibase_txmsg_lock for the default table prefix) before the
     * txmsg beans start, when Liquibase is on the class path and txmsg's Flyway migrations do not
     * run (Flyway absent, or txmsg.flyway.enabled=false).
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
