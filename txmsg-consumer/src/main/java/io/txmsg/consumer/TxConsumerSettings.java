package io.txmsg.consumer;

import io.txmsg.store.TablePrefix;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the consumer side, with the defaults an operator would pick. Consumer groups are
 * declared here ({@link #group}) so that their subscription is the same on every instance.
 */
public final class TxConsumerSettings {
  private String endpoints;
  private String accessKey;
  private String secretKey;
  private Duration requestTimeout = Duration.ofSeconds(3);
  private String tablePrefix = TablePrefix.DEFAULT;
  private boolean autoCreateSchema = false;
  private Duration consumeLogRetention = Duration.ofDays(7);
  private Duration tooOldMargin = Duration.ofDays(1);
  private final Map<String, ConsumerGroupConfig> groups = new LinkedHashMap<>();
  private int consumptionThreads = 8;
  private Duration commandPollInterval = Duration.ofMillis(500);
  private int commandBatchSize = 50;
  private Duration commandLease = Duration.ofSeconds(30);
  private int commandMaxAttempts = 10;
  private Duration commandBackoffInitial = Duration.ofSeconds(1);
  private Duration commandBackoffMax = Duration.ofMinutes(5);
  private boolean dlqDrainEnabled = true;
  private Duration dlqDrainRetryInterval = Duration.ofSeconds(30);
  private Duration retryPolicyWait = Duration.ofSeconds(10);
  private boolean replayWorkerEnabled = true;
  private Duration replayPollInterval = Duration.ofSeconds(2);

  /** The RocketMQ proxy endpoints, e.g. {@code 127.0.0.1:8081}. Required. */
  public TxConsumerSettings endpoints(String endpoints) {
    this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
    return this;
  }

  public TxConsumerSettings credentials(String accessKey, String secretKey) {
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    return this;
  }

  public TxConsumerSettings requestTimeout(Duration timeout) {
    this.requestTimeout = positive(timeout, "requestTimeout");
    return this;
  }

  public TxConsumerSettings tablePrefix(String prefix) {
    this.tablePrefix = TablePrefix.validate(prefix);
    return this;
  }

  /** Create the txmsg tables at startup when missing (tests, demos); off in production. */
  public TxConsumerSettings autoCreateSchema(boolean create) {
    this.autoCreateSchema = create;
    return this;
  }

  /**
   * How long consume-log rows are kept. An event born longer ago than this minus {@link
   * #tooOldMargin} is parked as TOO_OLD instead of applied: its consume-log row may already be
   * archived, so a duplicate could no longer be recognised.
   */
  public TxConsumerSettings consumeLogRetention(Duration retention) {
    this.consumeLogRetention = positive(retention, "consumeLogRetention");
    return this;
  }

  public TxConsumerSettings tooOldMargin(Duration margin) {
    this.tooOldMargin = Objects.requireNonNull(margin, "tooOldMargin");
    return this;
  }

  /** Declares a consumer group: its topics, filter and ignored event types. */
  public TxConsumerSettings group(ConsumerGroupConfig group) {
    groups.put(group.name(), group);
    return this;
  }

  /** Consumption threads of a group whose configuration does not say. */
  public TxConsumerSettings consumptionThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("consumptionThreads must be >= 1");
    }
    this.consumptionThreads = threads;
    return this;
  }

  public TxConsumerSettings commandPollInterval(Duration interval) {
    this.commandPollInterval = positive(interval, "commandPollInterval");
    return this;
  }

  public TxConsumerSettings commandBatchSize(int size) {
    this.commandBatchSize = size;
    return this;
  }

  /** How long a claimed command belongs to one dispatcher before another may take it over. */
  public TxConsumerSettings commandLease(Duration lease) {
    this.commandLease = positive(lease, "commandLease");
    return this;
  }

  public TxConsumerSettings commandMaxAttempts(int attempts) {
    this.commandMaxAttempts = attempts;
    return this;
  }

  public TxConsumerSettings commandBackoff(Duration initial, Duration max) {
    this.commandBackoffInitial = positive(initial, "commandBackoffInitial");
    this.commandBackoffMax = positive(max, "commandBackoffMax");
    return this;
  }

  /** Drain {@code %DLQ%<group>} into the dead-letter table (reason BROKER_DLQ). On by default. */
  public TxConsumerSettings dlqDrain(boolean enabled, Duration retryInterval) {
    this.dlqDrainEnabled = enabled;
    this.dlqDrainRetryInterval = positive(retryInterval, "dlqDrainRetryInterval");
    return this;
  }

  /** How long startup waits for the broker to announce a group's retry policy. */
  public TxConsumerSettings retryPolicyWait(Duration wait) {
    this.retryPolicyWait = positive(wait, "retryPolicyWait");
    return this;
  }

  /**
   * Run the replay requests written by {@code txmsg replay} for this application's groups, polling
   * every {@code pollInterval}. On by default; one instance of a group claims each request.
   */
  public TxConsumerSettings replayWorker(boolean enabled, Duration pollInterval) {
    this.replayWorkerEnabled = enabled;
    this.replayPollInterval = positive(pollInterval, "replayPollInterval");
    return this;
  }

  public boolean replayWorkerEnabled() {
    return replayWorkerEnabled;
  }

  public Duration replayPollInterval() {
    return replayPollInterval;
  }

  void validate() {
    if (endpoints == null || endpoints.isBlank()) {
      throw new IllegalArgumentException("endpoints is required (the RocketMQ proxy address)");
    }
    if (tooOldMargin.compareTo(consumeLogRetention) >= 0) {
      throw new IllegalArgumentException("tooOldMargin must be shorter than consumeLogRetention");
    }
    if (commandBatchSize < 1 || commandMaxAttempts < 1) {
      throw new IllegalArgumentException("commandBatchSize and commandMaxAttempts must be >= 1");
    }
  }

  private static Duration positive(Duration d, String name) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
    }
    return d;
  }

  public String endpoints() {
    return endpoints;
  }

  public String accessKey() {
    return accessKey;
  }

  public String secretKey() {
    return secretKey;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  public String tablePrefix() {
    return tablePrefix;
  }

  public boolean autoCreateSchema() {
    return autoCreateSchema;
  }

  public Duration consumeLogRetention() {
    return consumeLogRetention;
  }

  public Duration tooOldMargin() {
    return tooOldMargin;
  }

  /** Events born before now minus this are parked as TOO_OLD. */
  public Duration maxEventAge() {
    return consumeLogRetention.minus(tooOldMargin);
  }

  public Map<String, ConsumerGroupConfig> groups() {
    return groups;
  }

  public int consumptionThreads() {
    return consumptionThreads;
  }

  public Duration commandPollInterval() {
    return commandPollInterval;
  }

  public int commandBatchSize() {
    return commandBatchSize;
  }

  public Duration commandLease() {
    return commandLease;
  }

  public int commandMaxAttempts() {
    return commandMaxAttempts;
  }

  public Duration commandBackoffInitial() {
    return commandBackoffInitial;
  }

  public Duration commandBackoffMax() {
    return commandBackoffMax;
  }

  public boolean dlqDrainEnabled() {
    return dlqDrainEnabled;
  }

  public Duration dlqDrainRetryInterval() {
    return dlqDrainRetryInterval;
  }

  public Duration retryPolicyWait() {
    return retryPolicyWait;
  }

  @Override
  public String toString() {
    // No secret key here: settings end up in logs.
    return "TxConsumerSettings{endpoints="
        + endpoints
        + ", tablePrefix="
        + tablePrefix
        + ", groups="
        + groups.keySet()
        + ", consumeLogRetention="
        + consumeLogRetention
        + "}";
  }
}
