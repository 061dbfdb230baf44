package io.txmsg.rocketmq.remoting;

import io.txmsg.transport.BrokerConnection;
import java.util.UUID;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.remoting.RPCHook;

/**
 * Applies a {@link BrokerConnection} to rocketmq-client objects: NameServer addresses, TLS, the ACL
 * hook, and a unique instance name.
 *
 * <p>Why a unique instance name: rocketmq-client shares one MQClientInstance per (client IP,
 * instance name) in a JVM and refuses a second producer or consumer of the same group on it ("The
 * producer group has been created before"). Two txmsg producers of one store in one JVM (a test, or
 * a blue/green switch inside one process) must each get their own.
 */
final class RemotingClients {
  private final BrokerConnection connection;

  RemotingClients(BrokerConnection connection) {
    this.connection = connection;
  }

  /** The ACL hook, or null without credentials. The secret stays inside the hook, never logged. */
  RPCHook rpcHook() {
    return connection.accessKey() == null
        ? null
        : new AclClientRPCHook(
            new SessionCredentials(connection.accessKey(), connection.secretKey()));
  }

  /** The access key (for messages), or null without credentials. */
  String accessKey() {
    return connection.accessKey();
  }

  /** Configures a freshly constructed client before it starts. */
  <T extends ClientConfig> T configure(T client, String role) {
    client.setNamesrvAddr(connection.nameServer());
    client.setUseTLS(connection.tls());
    client.setInstanceName("txmsg-" + role + "-" + UUID.randomUUID().toString().substring(0, 8));
    client.setMqClientApiTimeout((int) connection.requestTimeout().toMillis());
    // Without this the client appends a VIP-channel port (broker port - 2) for some calls.
    client.setVipChannelEnabled(false);
    return client;
  }

  int timeoutMillis() {
    return (int) connection.requestTimeout().toMillis();
  }
}
