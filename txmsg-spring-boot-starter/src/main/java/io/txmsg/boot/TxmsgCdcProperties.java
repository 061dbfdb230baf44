package io.txmsg.boot;

import java.time.Duration;

/**
 * {@code txmsg.cdc.*}: the CDC relay the starter runs beside a producer whose {@code
 * txmsg.producer.delivery-mode} is {@code cdc} (needs {@code io.txmsg:txmsg-cdc} on the class
 * path). The relay reads the journal's inserts from the database's own log and sends them; one
 * instance per store relays at a time (a lease), so every instance may run it. The defaults are
 * {@code CdcRelaySettings.defaults()}.
 */
public class TxmsgCdcProperties {
  /**
   * Whether this instance runs the relay. Unset: on when txmsg.producer.delivery-mode is cdc. Off:
   * another deployment relays (or only the reconciler's fallback sends, after
   * txmsg.producer.cdc-fallback-after).
   */
  private Boolean enabled;

  /**
   * The database whose log the relay reads, as a JDBC URL (jdbc:postgresql:, jdbc:mariadb:,
   * jdbc:mysql:; its parameters are ignored). Default: spring.datasource.url.
   */
  private String jdbcUrl;

  /**
   * The account that reads the log (PostgreSQL: REPLICATION; MariaDB/MySQL: REPLICATION SLAVE and
   * REPLICATION CLIENT). Default: spring.datasource.username.
   */
  private String username;

  /** Its password. Default: spring.datasource.password. Never logged. */
  private String password;

  /**
   * How long the relay lease lasts without renewal: another instance takes over this long after the
   * holder died.
   */
  private Duration lease = Duration.ofSeconds(30);

  /** How long the connector waits for new changes when its queue is empty (poll.interval.ms). */
  private Duration pollInterval = Duration.ofMillis(10);

  /** How often the connector records its position without journal traffic. */
  private Duration heartbeatInterval = Duration.ofSeconds(10);

  /** How often the relay stores its offsets (what a restart or another instance resumes from). */
  private Duration offsetFlushInterval = Duration.ofSeconds(1);

  /** Records per batch handed over by the log reader. */
  private int maxBatchSize = 512;

  /** Records queued between the log reader and the relay. */
  private int maxQueueSize = 2048;

  /** Bytes queued between the log reader and the relay. */
  private long maxQueueBytes = 67_108_864L; // 64 MiB

  /** First wait before a failed send is tried again (doubling per failure). */
  private Duration backoffInitial = Duration.ofMillis(200);

  /** Longest wait before a failed send is tried again. */
  private Duration backoffMax = Duration.ofSeconds(30);

  /** Rows recorded SENT per UPDATE. */
  private int sentBatchSize = 500;

  /** Longest delay between a send and the UPDATE that records it SENT. */
  private Duration sentLinger = Duration.ofMillis(20);

  /** PostgreSQL: the replication slot. Default: txmsg_relay_&lt;storeId&gt;. */
  private String slotName;

  /** PostgreSQL: the publication the slot decodes. Default: &lt;prefix&gt;journal_cdc. */
  private String publicationName;

  /** PostgreSQL: whether the relay creates a missing publication (needs the CREATE privilege). */
  private boolean createPublication = true;

  /**
   * MariaDB/MySQL: the server id the relay presents as a replica. 0: a random one per relay
   * instance.
   */
  private long serverId = 0;

  /**
   * PostgreSQL: whether an instance that took over an expired lease terminates the former holder's
   * walsender instead of waiting for wal_sender_timeout.
   */
  private boolean terminateStaleReader = true;

  /** How often the relay's lag gauges (txmsg.cdc.relay.lag.*) are read, with Micrometer. */
  private Duration metricsInterval = Duration.ofSeconds(10);

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getJdbcUrl() {
    return jdbcUrl;
  }

  public void setJdbcUrl(String jdbcUrl) {
    this.jdbcUrl = jdbcUrl;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public Duration getHeartbeatInterval() {
    return heartbeatInterval;
  }

  public void setHeartbeatInterval(Duration heartbeatInterval) {
    this.heartbeatInterval = heartbeatInterval;
  }

  public Duration getOffsetFlushInterval() {
    return offsetFlushInterval;
  }

  public void setOffsetFlushInterval(Duration offsetFlushInterval) {
    this.offsetFlushInterval = offsetFlushInterval;
  }

  public int getMaxBatchSize() {
    return maxBatchSize;
  }

  public void setMaxBatchSize(int maxBatchSize) {
    this.maxBatchSize = maxBatchSize;
  }

  public int getMaxQueueSize() {
    return maxQueueSize;
  }

  public void setMaxQueueSize(int maxQueueSize) {
    this.maxQueueSize = maxQueueSize;
  }

  public long getMaxQueueBytes() {
    return maxQueueBytes;
  }

  public void setMaxQueueBytes(long maxQueueBytes) {
    this.maxQueueBytes = maxQueueBytes;
  }

  public Duration getBackoffInitial() {
    return backoffInitial;
  }

  public void setBackoffInitial(Duration backoffInitial) {
    this.backoffInitial = backoffInitial;
  }

  public Duration getBackoffMax() {
    return backoffMax;
  }

  public void setBackoffMax(Duration backoffMax) {
    this.backoffMax = backoffMax;
  }

  public int getSentBatchSize() {
    return sentBatchSize;
  }

  public void setSentBatchSize(int sentBatchSize) {
    this.sentBatchSize = sentBatchSize;
  }

  public Duration getSentLinger() {
    return sentLinger;
  }

  public void setSentLinger(Duration sentLinger) {
    this.sentLinger = sentLinger;
  }

  public String getSlotName() {
    return slotName;
  }

  public void setSlotName(String slotName) {
    this.slotName = slotName;
  }

  public String getPublicationName() {
    return publicationName;
  }

  public void setPublicationName(String publicationName) {
    this.publicationName = publicationName;
  }

  public boolean isCreatePublication() {
    return createPublication;
  }

  public void setCreatePublication(boolean createPublication) {
    this.createPublication = createPublication;
  }

  public long getServerId() {
    return serverId;
  }

  public void setServerId(long serverId) {
    this.serverId = serverId;
  }

  public boolean isTerminateStaleReader() {
    return terminateStaleReader;
  }

  public void setTerminateStaleReader(boolean terminateStaleReader) {
    this.terminateStaleReader = terminateStaleReader;
  }

  public Duration getMetricsInterval() {
    return metricsInterval;
  }

  public void setMetricsInterval(Duration metricsInterval) {
    this.metricsInterval = metricsInterval;
  }
}
