package io.txmsg.rocketmq;

import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Transport;
import io.txmsg.transport.TransportProvider;

/** Registers {@link GrpcTransport} for connections given by gRPC proxy endpoints. */
public final class GrpcTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public boolean supports(BrokerConnection connection) {
    return connection.endpoints() != null && !connection.endpoints().isBlank();
  }

  @Override
  public Transport open(BrokerConnection connection) {
    return new GrpcTransport(connection);
  }
}
