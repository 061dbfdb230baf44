package io.txmsg.transport;

/**
 * Service-provider interface: a transport module registers one in {@code
 * META-INF/services/io.txmsg.transport.TransportProvider}; {@link Transports#open} picks the first
 * that {@link #supports} the connection.
 */
public interface TransportProvider {
  /** e.g. {@code grpc}. */
  String name();

  /** True when this provider can talk to the broker the connection describes. */
  boolean supports(BrokerConnection connection);

  Transport open(BrokerConnection connection);
}
