package io.txmsg.transport;

import io.txmsg.api.InvalidSettingsException;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach the broker: shared by the producer and consumer settings. Immutable: the {@code
 * with…} methods return a copy.
 *
 * <pre>{@code
 * BrokerConnection.endpoints("127.0.0.1:8081")        // gRPC proxy endpoint(s)
 *     .withCredentials(accessKey, secretKey)           // ACL; the secret is never logged
 *     .withRequestTimeout(Duration.ofSeconds(3));
 * }</pre>
 */
public final class BrokerConnection {
  private final String endpoints;
  private final String accessKey;
  private final String secretKey;
  private final Duration requestTimeout;
  private final boolean tls;

  private BrokerConnection(
      String endpoints, String accessKey, String secretKey, Duration requestTimeout, boolean tls) {
    this.endpoints = endpoints;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.requestTimeout = requestTimeout;
    this.tls = tls;
  }

  /**
   * The gRPC endpoint(s) of a RocketMQ 5 proxy, e.g. {@code 127.0.0.1:8081} (semicolon-separated).
   */
  public static BrokerConnection endpoints(String endpoints) {
    return new BrokerConnection(endpoints, null, null, Duration.ofSeconds(3), true);
  }

  /** No broker at all: for runtimes given a {@link Transport} directly (tests, tools). */
  public static BrokerConnection none() {
    return new BrokerConnection(null, null, null, Duration.ofSeconds(3), true);
  }

  /** RocketMQ ACL access key and secret; default none. */
  public BrokerConnection withCredentials(String accessKey, String secretKey) {
    return new BrokerConnection(endpoints, accessKey, secretKey, requestTimeout, tls);
  }

  /** Client request timeout (sends, commits, receives); default 3 s. */
  public BrokerConnection withRequestTimeout(Duration requestTimeout) {
    return new BrokerConnection(endpoints, accessKey, secretKey, requestTimeout, tls);
  }

  /**
   * Whether the gRPC connection to the proxy uses TLS; default true, the default of
   * rocketmq-client-java 5.x. Pass false for a proxy that listens in plaintext only, or to compare
   * with clients that do not encrypt (the benchmarks). The proxy's default TLS mode (permissive)
   * accepts both.
   */
  public BrokerConnection withTls(boolean tls) {
    return new BrokerConnection(endpoints, accessKey, secretKey, requestTimeout, tls);
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

  /** See {@link #withTls(boolean)}. */
  public boolean tls() {
    return tls;
  }

  /**
   * @throws InvalidSettingsException naming the field ({@code connection.endpoints}, …)
   */
  public void validate() {
    if (endpoints == null || endpoints.isBlank()) {
      throw new InvalidSettingsException("connection.endpoints", "is required");
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new InvalidSettingsException(
          "connection.credentials", "need both the access key and the secret key");
    }
    if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new InvalidSettingsException("connection.requestTimeout", "must be positive");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BrokerConnection c
        && Objects.equals(endpoints, c.endpoints)
        && Objects.equals(accessKey, c.accessKey)
        && Objects.equals(secretKey, c.secretKey)
        && Objects.equals(requestTimeout, c.requestTimeout)
        && tls == c.tls;
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpoints, accessKey, requestTimeout, tls);
  }

  /** Never shows the secret. */
  @Override
  public String toString() {
    return "BrokerConnection{endpoints="
        + endpoints
        + (accessKey == null ? "" : ", accessKey=" + accessKey + ", secretKey=***")
        + ", requestTimeout="
        + requestTimeout
        + ", tls="
        + tls
        + "}";
  }
}
