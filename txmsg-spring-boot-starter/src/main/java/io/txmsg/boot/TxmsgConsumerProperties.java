package io.txmsg.boot;

import io.txmsg.boot.TxmsgProperties.Group;
import io.txmsg.boot.TxmsgProperties.JsonMapperChoice;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/** Binds {@code txmsg.consumer.*}: the consumers (every @TxMessageHandler bean method). */
public class TxmsgConsumerProperties {
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
   * Spring Boot provides one, unknown properties ignored) or TXMSG (txmsg's own Jackson 2 mapper).
   */
  private JsonMapperChoice jsonMapper = JsonMapperChoice.APPLICATION;

  /**
   * Consumer groups by name, each with the topics it subscribes. Setting one starts the consumers.
   */
  private Map<String, Group> groups = new LinkedHashMap<>();

  /** Backoff between command attempts: initial, doubling, capped at max. */
  @NestedConfigurationProperty
  private final TxmsgBackoffProperties commandBackoff = new TxmsgBackoffProperties();

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

  public TxmsgBackoffProperties getCommandBackoff() {
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
}
