package io.txmsg.transport;

import io.txmsg.api.InvalidSettingsException;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach the broker: shared by the producer and consumer settings. The factory method chooses
 * the transport: {@link #endpoints(String)} the gRPC proxy (module txmsg-rocketmq), {@link
 * #nameServer(String)} the remoting protocol straight to the brokers (module
 * txmsg-rocketmq-remoting). Immutable: the {@code with…} methods return a copy.
 *
 * <pre>{@code
 * BrokerConnection.nameServer("ns1:9876;ns2:9876")    // remoting: RocketMQ 4.x/5.x, no proxy
 *     .withCredentials(accessKey, secretKey)           // ACL; the secret is never logged
 *     .withRequestTimeout(Duration.ofSeconds(3));
 * BrokerConnection.endpoints("proxy:8081");             // gRPC: a RocketMQ 5 proxy
 * }</pre>
 */
public final class BrokerConnection {
  private final String endpoints;
  private final String nameServer;
  private final String accessKey;
  private final String secretKey;
  private final Duration requestTimeout;
  private final boolean tls;

  private BrokerConnection(
      String endpoints,
      String nameServer,
      String accessKey,
      String secretKey,
      Duration requestTimeout,
      boolean tls) {
    this.endpoints = endpoints;
    this.nameServer = nameServer;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
    this.requestTimeout = requestTimeout;
    this.tls = tls;
  }

  /**
   * The gRPC endpoint(s) of a RocketMQ 5 proxy, e.g. {@code 127.0.0.1:8081} (semicolon-separated).
   * TLS is on by default, as in rocketmq-client-java 5.x.
   */
  public static BrokerConnection endpoints(String endpoints) {
    return new BrokerConnection(endpoints, null, null, null, Duration.ofSeconds(3), true);
  }

  /**
   * The NameServer address(es) of a RocketMQ 4.x or 5.x cluster, e.g. {@code ns1:9876;ns2:9876}:
   * the remoting protocol, straight to the brokers, no proxy. TLS is off by default, as in
   * rocketmq-client.
   */
  public static BrokerConnection nameServer(String addresses) {
    return new BrokerConnection(null, addresses, null, null, Duration.ofSeconds(3), false);
  }

  /** No broker at all: for runtimes given a {@link Transport} directly (tests, tools). */
  public static BrokerConnection none() {
    return new BrokerConnection(null, null, null, null, Duration.ofSeconds(3), true);
  }

  /** RocketMQ ACL access key and secret; default none. */
  public BrokerConnection withCredentials(String accessKey, String secretKey) {
    return new BrokerConnection(endpoints, nameServer, accessKey, secretKey, requestTimeout, tls);
  }

  /** Client request timeout (sends, commits, receives); default 3 s. */
  public BrokerConnection withRequestTimeout(Duration requestTimeout) {
    return new BrokerConnection(endpoints, nameServer, accessKey, secretKey, requestTimeout, tls);
  }

  /**
   * Whether the connection uses TLS. Defaults follow the clients: true for gRPC
   * (rocketmq-client-java 5.x), false for remoting (rocketmq-client). Pass false for a proxy that
   * listens in plaintext only, or to compare transports on equal terms (the benchmarks). The
   * proxy's default TLS mode (permissive) accepts both; a remoting broker needs its TLS mode set to
   * accept TLS.
   */
  public BrokerConnection withTls(boolean tls) {
    return new BrokerConnection(endpoints, nameServer, accessKey, secretKey, requestTimeout, tls);
  }

  /** The gRPC proxy endpoints, or null when the connection is not gRPC. */
  public String endpoints() {
    return endpoints;
  }

  /** The NameServer addresses, or null when the connection is not remoting. */
  public String nameServer() {
    return nameServer;
  }

  /** {@code grpc}, {@code remoting} or {@code none}: the protocol the factory method chose. */
  public String protocol() {
    return endpoints != null ? "grpc" : nameServer != null ? "remoting" : "none";
  }

  /** Where the connection points, for messages: the endpoints or the NameServer addresses. */
  public String address() {
    return endpoints != null ? endpoints : nameServer;
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
    boolean grpc = endpoints != null;
    boolean remoting = nameServer != null;
    if (!grpc && !remoting) {
      throw new InvalidSettingsException(
          "connection",
          "is required: BrokerConnection.nameServer(\"host:9876\") for remoting or"
              + " BrokerConnection.endpoints(\"host:8081\") for a gRPC proxy");
    }
    if (grpc && endpoints.isBlank()) {
      throw new InvalidSettingsException("connection.endpoints", "must not be blank");
    }
    if (remoting) {
      validateNameServer(nameServer);
    }
    if ((accessKey == null) != (secretKey == null)) {
      throw new InvalidSettingsException(
          "connection.credentials", "need both the access key and the secret key");
    }
    if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new InvalidSettingsException("connection.requestTimeout", "must be positive");
    }
  }

  private static void validateNameServer(String addresses) {
    if (addresses.isBlank()) {
      throw new InvalidSettingsException("connection.nameServer", "must not be blank");
    }
    for (String a : addresses.split(";")) {
      String s = a.strip();
      int colon = s.lastIndexOf(':');
      boolean ok = colon > 0 && colon < s.length() - 1;
      if (ok) {
        try {
          int port = Integer.parseInt(s.substring(colon + 1));
          ok = port > 0 && port < 65536;
        } catch (NumberFormatException e) {
          ok = false;
        }
      }
      if (!ok) {
        throw new InvalidSettingsException(
            "connection.nameServer",
            "'" + a + "' is not host:port (several are separated by ';', e.g. ns1:9876;ns2:9876)");
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BrokerConnection c
        && Objects.equals(endpoints, c.endpoints)
        && Objects.equals(nameServer, c.nameServer)
        && Objects.equals(accessKey, c.accessKey)
        && Objects.equals(secretKey, c.secretKey)
        && Objects.equals(requestTimeout, c.requestTimeout)
        && tls == c.tls;
  }

  @Override
  public int hashCode() {
    return Objects.hash(endpoints, nameServer, accessKey, requestTimeout, tls);
  }

  /** Never shows the secret. */
  @Override
  public String toString() {
    return "BrokerConnection{"
        + (nameServer != null ? "nameServer=" + nameServer : "endpoints=" + endpoints)
        + (accessKey == null ? "" : ", accessKey=" + accessKey + ", secretKey=***")
        + ", requestTimeout="
        + requestTimeout
        + ", tls="
        + tls
        + "}";
  }
}
