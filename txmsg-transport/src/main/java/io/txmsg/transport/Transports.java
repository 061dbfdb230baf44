package io.txmsg.transport;

import io.txmsg.api.InvalidSettingsException;
import java.util.ServiceLoader;

/** Finds the transport for a {@link BrokerConnection} among the providers on the classpath. */
public final class Transports {
  private Transports() {}

  /**
   * Opens the transport of the first provider that supports {@code connection}.
   *
   * @throws InvalidSettingsException when the connection is invalid or no provider on the classpath
   *     supports it (the message names the artifact to add)
   */
  public static Transport open(BrokerConnection connection) {
    connection.validate();
    for (TransportProvider p :
        ServiceLoader.load(TransportProvider.class, Transports.class.getClassLoader())) {
      if (p.supports(connection)) {
        return p.open(connection);
      }
    }
    throw new InvalidSettingsException(
        "connection",
        connection
            + " has no transport on the classpath: add the dependency "
            + ("remoting".equals(connection.protocol())
                ? "io.txmsg:txmsg-rocketmq-remoting (NameServer addresses, remoting protocol)"
                : "io.txmsg:txmsg-rocketmq (gRPC endpoints of a RocketMQ 5 proxy)"));
  }
}
