package io.txmsg.boot;

import java.time.Duration;

/**
 * Binds {@code txmsg.broker.*}: how to reach RocketMQ; shared by the producer and the consumers.
 */
public class TxmsgBrokerProperties {
  /**
   * gRPC endpoint(s) of a RocketMQ 5 proxy, e.g. 127.0.0.1:8081 (needs txmsg-rocketmq). Set this or
   * name-server.
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
