package io.txmsg.boot;

import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.DeliveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code txmsg.*} properties of a Spring Boot application. An unset property (null) keeps the
 * default of {@code TxProducerSettings} / {@code TxConsumerSettings}: the defaults live in one
 * place, the settings classes, and are repeated here only in the descriptions.
 */
@ConfigurationProperties("txmsg")
public class TxmsgProperties {
  private final Broker broker = new Broker();
  private final Producer producer = new Producer();
  private final Consumer consumer = new Consumer();
  private final Health health = new Health();

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

  /** How to reach RocketMQ; shared by the producer and the consumer. */
  public static class Broker {
    /** gRPC endpoint(s) of a RocketMQ 5 proxy, e.g. 127.0.0.1:8081. Set this or name-server. */
    private String endpoints;

    /** NameServer address(es), e.g. ns1:9876;ns2:9876 (remoting). Set this or endpoints. */
    private String nameServer;

    /** ACL access key; needs secret-key. */
    private String accessKey;

    /** ACL secret key; needs access-key. Never logged. */
    private String secretKey;

    /** Whether to use TLS. Default: true for endpoints (gRPC), false for name-server. */
    private Boolean tls;

    /** Client request timeout (sends, commits, receives). Default 3s. */
    private Duration requestTimeout;

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
  }

  /** The producer: TxMessageTemplate, journal, check-back, reconciler. */
  public static class Producer {
    /** Whether to start the producer (a consumer-only application sets false). */
    private boolean enabled = true;

    /** Topics of execute's events (TRANSACTION topics in HALF_MESSAGE mode). Required. */
    private List<String> topics = new ArrayList<>();

    /** NORMAL or FIFO topics that only TxContext.publish sends to. */
    private List<String> publishTopics = new ArrayList<>();

    /** Identifies this journal in every message: 1..32 of [A-Za-z0-9_-]. Default "default". */
    private String storeId;

    /** Prefix of the txmsg tables. Default "txmsg_". */
    private String tablePrefix;

    /** How execute publishes its event. Default HALF_MESSAGE. */
    private DeliveryMode deliveryMode;

    /** How rows become SENT. Default CONSUMER (HALF_MESSAGE) or SEND_OK (OUTBOX). */
    private DeliveryConfirmation confirmation;

    /** A row unconfirmed this long after commit is republished. Default 10m. */
    private Duration republishAfter;

    /** An OUTBOX-style row not sent right after commit is sent this long after. Default 5s. */
    private Duration publishAfter;

    /** Create or upgrade the txmsg tables at startup. Default false (apply the shipped SQL). */
    private boolean autoCreateSchema;

    /** Run the reconciler in this instance. Default true. */
    private Boolean reconcilerEnabled;

    /** How long consumers keep consume-log rows (RETRY rows older become DEAD). Default 7d. */
    private Duration consumeLogRetention;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
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

    public Duration getRepublishAfter() {
      return republishAfter;
    }

    public void setRepublishAfter(Duration republishAfter) {
      this.republishAfter = republishAfter;
    }

    public Duration getPublishAfter() {
      return publishAfter;
    }

    public void setPublishAfter(Duration publishAfter) {
      this.publishAfter = publishAfter;
    }

    public boolean isAutoCreateSchema() {
      return autoCreateSchema;
    }

    public void setAutoCreateSchema(boolean autoCreateSchema) {
      this.autoCreateSchema = autoCreateSchema;
    }

    public Boolean getReconcilerEnabled() {
      return reconcilerEnabled;
    }

    public void setReconcilerEnabled(Boolean reconcilerEnabled) {
      this.reconcilerEnabled = reconcilerEnabled;
    }

    public Duration getConsumeLogRetention() {
      return consumeLogRetention;
    }

    public void setConsumeLogRetention(Duration consumeLogRetention) {
      this.consumeLogRetention = consumeLogRetention;
    }
  }

  /** The consumers: every @TxMessageHandler bean method. */
  public static class Consumer {
    /** Whether to start the consumers (a producer-only application sets false). */
    private boolean enabled = true;

    /** Prefix of the txmsg tables. Default "txmsg_". */
    private String tablePrefix;

    /** Create or upgrade the txmsg tables at startup. Default false (apply the shipped SQL). */
    private boolean autoCreateSchema;

    /** Consumption threads per group, unless the group sets its own. */
    private Integer threads;

    /** How long consume-log rows are kept. Default 7d. */
    private Duration consumeLogRetention;

    /** Consumer groups by name, each with the topics it subscribes. */
    private Map<String, Group> groups = new LinkedHashMap<>();

    private final DlqDrain dlqDrain = new DlqDrain();

    private final LeasedDelivery leasedDelivery = new LeasedDelivery();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
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

    public Integer getThreads() {
      return threads;
    }

    public void setThreads(Integer threads) {
      this.threads = threads;
    }

    public Duration getConsumeLogRetention() {
      return consumeLogRetention;
    }

    public void setConsumeLogRetention(Duration consumeLogRetention) {
      this.consumeLogRetention = consumeLogRetention;
    }

    public Map<String, Group> getGroups() {
      return groups;
    }

    public void setGroups(Map<String, Group> groups) {
      this.groups = groups;
    }

    public DlqDrain getDlqDrain() {
      return dlqDrain;
    }

    public LeasedDelivery getLeasedDelivery() {
      return leasedDelivery;
    }
  }

  /** One consumer group. */
  public static class Group {
    /** Topics the group subscribes (tag filter *). */
    private List<String> topics = new ArrayList<>();

    /** Event types acknowledged without a handler (never parked). */
    private List<String> ignore = new ArrayList<>();

    /** Consumption threads of this group. */
    private Integer threads;

    /** Deliveries of an event without a local handler before it is parked. Default 16. */
    private Integer maxAttempts;

    public List<String> getTopics() {
      return topics;
    }

    public void setTopics(List<String> topics) {
      this.topics = topics;
    }

    public List<String> getIgnore() {
      return ignore;
    }

    public void setIgnore(List<String> ignore) {
      this.ignore = ignore;
    }

    public Integer getThreads() {
      return threads;
    }

    public void setThreads(Integer threads) {
      this.threads = threads;
    }

    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }
  }

  /** Draining the broker's dead-letter queue into the dead_letter table. */
  public static class DlqDrain {
    /** Whether to drain. Default: the consumer settings' default. */
    private Boolean enabled;

    /** Pause after a failed drain round. Default 30s. */
    private Duration retryInterval;

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getRetryInterval() {
      return retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
      this.retryInterval = retryInterval;
    }
  }

  /**
   * Leased delivery over gRPC (TxConsumerSettings#leasedDelivery): on when {@code lease} is set. A
   * crashed consumer's in-flight events then come back to another instance after at most one lease
   * instead of the broker's channel expiry (120 s by default).
   */
  public static class LeasedDelivery {
    /**
     * How long a received message stays hidden from other instances, renewed while held (>= 10s).
     */
    private Duration lease;

    /** Delay before the second delivery attempt of a failed event. Default 1s. */
    private Duration retryInitial = Duration.ofSeconds(1);

    /** Largest delay between delivery attempts. Default 1m. */
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

  /**
   * The "txmsg" health indicator. It reports UP however large the backlog unless a threshold is
   * set: a broker outage must not take every instance out of service at once.
   */
  public static class Health {
    /** Report DOWN when the journal has more DEAD rows than this. Unset: never. */
    private Long downWhenDeadRowsAbove;

    /** Report DOWN when PARKED dead letters (all groups) are more than this. Unset: never. */
    private Long downWhenParkedAbove;

    /** Report DOWN when the oldest unconfirmed journal row is older than this. Unset: never. */
    private Duration downWhenOldestUnconfirmedAbove;

    /**
     * Report DOWN when no broker address accepts a TCP connection. Off by default: a broker outage
     * would take every instance out of service at once, while txmsg keeps the events in the journal
     * and delivers them when the broker is back.
     */
    private boolean downWhenBrokerUnreachable;

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
}
