package io.txmsg.boot;

import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.TransportProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The starter brings no transport: the application adds {@code txmsg-rocketmq-remoting} (remoting,
 * NameServer) or {@code txmsg-rocketmq} (gRPC proxy). The address property chooses between them
 * ({@code txmsg.broker.name-server} or {@code txmsg.broker.endpoints}), so both on the class path
 * is never ambiguous; this check fails the start, before anything connects, when the chosen one is
 * missing, naming the dependency to add.
 */
final class TransportCheck {
  static final String REMOTING_ARTIFACT = "io.txmsg:txmsg-rocketmq-remoting";
  static final String GRPC_ARTIFACT = "io.txmsg:txmsg-rocketmq";

  private TransportCheck() {}

  /**
   * @throws MissingTransportException when no transport on the class path supports the connection
   */
  static void check(BrokerConnection connection, ClassLoader classLoader) {
    for (TransportProvider p : providers(classLoader)) {
      if (p.supports(connection)) {
        return;
      }
    }
    boolean remoting = "remoting".equals(connection.protocol());
    throw new MissingTransportException(
        remoting ? "txmsg.broker.name-server" : "txmsg.broker.endpoints",
        remoting
            ? "selects the remoting transport, which is not on the class path"
            : "selects the gRPC transport, which is not on the class path",
        remoting ? REMOTING_ARTIFACT : GRPC_ARTIFACT,
        onClassPath(classLoader));
  }

  /** "transports on the class path: remoting" (or "none"), for messages. */
  static String onClassPath() {
    return onClassPath(TransportCheck.class.getClassLoader());
  }

  static String onClassPath(ClassLoader classLoader) {
    List<String> names = new ArrayList<>();
    for (TransportProvider p : providers(classLoader)) {
      names.add(p.name());
    }
    return "transports on the class path: " + (names.isEmpty() ? "none" : String.join(", ", names));
  }

  /** The providers that load; one whose class is missing (a filtered class loader) is skipped. */
  private static List<TransportProvider> providers(ClassLoader classLoader) {
    List<TransportProvider> out = new ArrayList<>();
    Iterator<TransportProvider> it =
        ServiceLoader.load(TransportProvider.class, classLoader).iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          return out;
        }
        out.add(it.next());
      } catch (ServiceConfigurationError e) {
        // listed in META-INF/services but not loadable here: not on this class path
      }
    }
  }
}
