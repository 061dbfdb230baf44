package io.txmsg.rocketmq.remoting;

import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.Transport;
import io.txmsg.transport.TransportProvider;

/** Registers {@link RemotingTransport} for connections given by NameServer addresses. */
public final class RemotingTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "remoting";
  }

  @Override
  public boolean supports(BrokerConnection connection) {
    return connection.nameServer() != null;
  }

  @Override
  public Transport open(BrokerConnection connection) {
    return new RemotingTransport(connection);
  }
}
