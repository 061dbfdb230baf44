package io.txmsg.bench;

import java.sql.SQLException;
import org.h2.tools.Server;

/**
 * On H2, the database under test served over TCP from this JVM, so that every variant reaches it
 * the same way: the benchmark's own pools and the rocketmq-spring child JVM alike connect to {@code
 * jdbc:h2:tcp://127.0.0.1:<port>/mem:<name>} (loopback TCP, one round trip per statement, as on
 * MariaDB and PostgreSQL). An embedded in-memory connection for the variants in this JVM would let
 * them skip the round trip that the child, which cannot share this JVM's memory, pays for every
 * statement: rocketmq-spring would be measured against a cheaper database than txmsg.
 *
 * <p>The in-memory database itself is created by {@link io.txmsg.testkit.db.TestDatabase#open()} in
 * this JVM (its pool keeps it alive); the server only serves it. Loopback only.
 */
final class H2Server implements AutoCloseable {
  private final Server server;
  private final String url;

  /** Serves the in-memory database {@code memUrl} ({@code jdbc:h2:mem:<name>;…}) over TCP. */
  H2Server(String memUrl) throws SQLException {
    String prefix = "jdbc:h2:mem:";
    if (!memUrl.startsWith(prefix)) {
      throw new IllegalArgumentException("not an in-memory H2 URL: " + memUrl);
    }
    String rest = memUrl.substring(prefix.length());
    int semicolon = rest.indexOf(';');
    String name = semicolon < 0 ? rest : rest.substring(0, semicolon);
    // Port 0: the server picks a free port, read back below.
    server = Server.createTcpServer("-tcpPort", "0", "-tcpDaemon").start();
    url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + name;
  }

  /** The URL every pool of the run connects with. */
  String url() {
    return url;
  }

  @Override
  public void close() {
    server.stop();
  }
}
