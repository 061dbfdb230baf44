package io.txmsg.consumer;

import io.txmsg.api.InvalidSettingsException;
import io.txmsg.api.SealableSettings;
import io.txmsg.store.TablePrefix;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.SubscriptionSpec;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the consumer side, with the defaults an operator would pick. Consumer groups are
 * declared here ({@link #group}) so that their subscription is the same on every instance. Setters
 * and {@link TxConsumers.Builder#build()} fail with an {@link InvalidSettingsException} naming the
 * setting; the running consumers read a sealed copy taken at build.
 */
public final class TxConsumerSettings extends SealableSettings<TxConsumerSettings> {
  private BrokerConnection connection = BrokerConnection.none();
  private String tablePrefix = TablePrefix.DEFAULT;
  private boolean autoCreateSchema = false;
  private Duration consumeLogRetention = Duration.ofDays(7);
  private Duration tooOldMargin = Duration.ofDays(1);
  private Map<String, ConsumerGroupConfig> groups = new LinkedHashMap<>();
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
  private SubscriptionSpec.Lease lease;

  /**
   * How to reach the broker (shared with the producer settings), e.g. {@code
   * BrokerConnection.endpoints("127.0.0.1:8081")}; required unless the builder is given a
   * transport.
   */
  public TxConsumerSettings connection(BrokerConnection connection) {
    checkNotSealed();
    this.connection = connection;
    return this;
  }

  public TxConsumerSettings tablePrefix(String prefix) {
    checkNotSealed();
    this.tablePrefix = TablePrefix.validate(prefix);
    return this;
  }

  /** Create the txmsg tables at startup when missing (tests, demos); off in production. */
  public TxConsumerSettings autoCreateSchema(boolean create) {
    checkNotSealed();
    this.autoCreateSchema = create;
    return this;
  }

  /**
   * How long consume-log rows are kept. An event born longer ago than this minus {@link
   * #tooOldMargin} is parked as TOO_OLD instead of applied: its consume-log row may already be
   * archived, so a duplicate could no longer be recognised.
   */
  public TxConsumerSettings consumeLogRetention(Duration retention) {
    checkNotSealed();
    this.consumeLogRetention = positive("consumeLogRetention", retention);
    return this;
  }

  public TxConsumerSettings tooOldMargin(Duration margin) {
    checkNotSealed();
    this.tooOldMargin = Objects.requireNonNull(margin, "tooOldMargin");
    return this;
  }

  /** Declares a consumer group: its topics, filter and ignored event types. */
  public TxConsumerSettings group(ConsumerGroupConfig group) {
    checkNotSealed();
    groups.put(group.name(), group);
    return this;
  }

  /** Consumption threads of a group whose configuration does not say. */
  public TxConsumerSettings consumptionThreads(int threads) {
    checkNotSealed();
    if (threads < 1) {
      throw new InvalidSettingsException("consumptionThreads", "must be >= 1");
    }
    this.consumptionThreads = threads;
    return this;
  }

  public TxConsumerSettings commandPollInterval(Duration interval) {
    checkNotSealed();
    this.commandPollInterval = positive("commandPollInterval", interval);
    return this;
  }

  public TxConsumerSettings commandBatchSize(int size) {
    checkNotSealed();
    this.commandBatchSize = size;
    return this;
  }

  /** How long a claimed command belongs to one dispatcher before another may take it over. */
  public TxConsumerSettings commandLease(Duration lease) {
    checkNotSealed();
    this.commandLease = positive("commandLease", lease);
    return this;
  }

  public TxConsumerSettings commandMaxAttempts(int attempts) {
    checkNotSealed();
    this.commandMaxAttempts = attempts;
    return this;
  }

  public TxConsumerSettings commandBackoff(Duration initial, Duration max) {
    checkNotSealed();
    this.commandBackoffInitial = positive("commandBackoffInitial", initial);
    this.commandBackoffMax = positive("commandBackoffMax", max);
    if (max.compareTo(initial) < 0) {
      throw new InvalidSettingsException(
          "commandBackoffMax", "must not be below commandBackoffInitial (" + initial + ")");
    }
    return this;
  }

  /** Drain {@code %DLQ%<group>} into the dead-letter table (reason BROKER_DLQ). On by default. */
  public TxConsumerSettings dlqDrain(boolean enabled, Duration retryInterval) {
    checkNotSealed();
    this.dlqDrainEnabled = enabled;
    this.dlqDrainRetryInterval = positive("dlqDrainRetryInterval", retryInterval);
    return this;
  }

  /** How long startup waits for the broker to announce a group's retry policy. */
  public TxConsumerSettings retryPolicyWait(Duration wait) {
    checkNotSealed();
    this.retryPolicyWait = positive("retryPolicyWait", wait);
    return this;
  }

  /**
   * Run the replay requests written by {@code txmsg replay} for this application's groups, polling
   * every {@code pollInterval}. On by default; one instance of a group claims each request.
   */
  public TxConsumerSettings replayWorker(boolean enabled, Duration pollInterval) {
    checkNotSealed();
    this.replayWorkerEnabled = enabled;
    this.replayPollInterval = positive("replayPollInterval", pollInterval);
    return this;
  }

  /**
   * Leased delivery (gRPC transport): every group consumes through a simple consumer that receives
   * each message with an invisible time of {@code lease} and renews it while the message is held,
   * instead of a push consumer whose messages the proxy renews until the broker expires the
   * client's channel. After a consumer crash its in-flight events come back to another instance
   * after at most {@code lease} instead of the broker's {@code channelExpiredTimeout} (120 s by
   * default). A failed delivery (RETRY) is hidden for {@code retryInitial} doubled per attempt, at
   * most {@code retryMax} (txmsg's schedule, not the group's retry policy, which a simple consumer
   * is not told); the broker still moves a message to {@code %DLQ%<group>} after the group's
   * retryMaxTimes, so keep every handler's maxAttempts at or below retryMaxTimes + 1 for txmsg to
   * park first. Off by default; the remoting transport ignores it (its consumers already get a dead
   * client's queues back within seconds). See README, "Consumer crash recovery".
   *
   * @param lease at least 10 s (the proxy refuses a shorter invisible time on receive)
   */
  public TxConsumerSettings leasedDelivery(
      Duration lease, Duration retryInitial, Duration retryMax) {
    checkNotSealed();
    positive("leasedDelivery.lease", lease);
    positive("leasedDelivery.retryInitial", retryInitial);
    positive("leasedDelivery.retryMax", retryMax);
    if (lease.compareTo(SubscriptionSpec.Lease.MIN_DURATION) < 0) {
      throw new InvalidSettingsException(
          "leasedDelivery.lease",
          "must be at least "
              + SubscriptionSpec.Lease.MIN_DURATION
              + " (the proxy's minimum), got "
              + lease);
    }
    if (retryMax.compareTo(retryInitial) < 0) {
      throw new InvalidSettingsException(
          "leasedDelivery.retryMax",
          "must be at least retryInitial (" + retryInitial + "), got " + retryMax);
    }
    this.lease = new SubscriptionSpec.Lease(lease, retryInitial, retryMax);
    return this;
  }

  /** The leased-delivery settings, or null when groups use the transport's default consumer. */
  public SubscriptionSpec.Lease leasedDelivery() {
    return lease;
  }

  public boolean replayWorkerEnabled() {
    return replayWorkerEnabled;
  }

  public Duration replayPollInterval() {
    return replayPollInterval;
  }

  /** Checks every setting; the exception names the first bad one. */
  @Override
  public void validate() {
    if (connection == null) {
      throw new InvalidSettingsException("connection", "is required");
    }
    if (tooOldMargin.compareTo(consumeLogRetention) >= 0) {
      throw new InvalidSettingsException(
          "tooOldMargin", "must be shorter than consumeLogRetention");
    }
    if (commandBatchSize < 1) {
      throw new InvalidSettingsException("commandBatchSize", "must be >= 1");
    }
    if (commandMaxAttempts < 1) {
      throw new InvalidSettingsException("commandMaxAttempts", "must be >= 1");
    }
  }

  /** A validated copy that refuses changes (its groups copied too): what running consumers read. */
  TxConsumerSettings sealedCopy() {
    return validatedSealedCopy();
  }

  @Override
  protected String component() {
    return "consumer";
  }

  /** An unsealed deep copy, e.g. to configure a second application like this one. */
  @Override
  public TxConsumerSettings copy() {
    TxConsumerSettings c = unsealedClone();
    c.groups = new LinkedHashMap<>();
    groups.forEach((name, g) -> c.groups.put(name, g.copy()));
    return c;
  }

  public BrokerConnection connection() {
    return connection;
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
    return "TxConsumerSettings{"
        + connection
        + ", tablePrefix="
        + tablePrefix
        + ", groups="
        + groups.keySet()
        + ", consumeLogRetention="
        + consumeLogRetention
        + "}";
  }
}
