package io.txmsg.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy between an application and a server (the database, the broker's gRPC proxy) that
 * injects network faults on every connection through it:
 *
 * <ul>
 *   <li>{@link #latency}: each chunk is forwarded that much later, in both directions;
 *   <li>{@link #blackHole}: bytes are held, neither forwarded nor refused (no RST, no FIN), as when
 *       packets are dropped and TCP keeps retransmitting; when it ends the held bytes go through,
 *       as after a partition that heals before the peers give up;
 *   <li>{@link #holdResponses}: only the server's answers are held;
 *   <li>{@link #resetAll}: every open connection is closed with an RST (SO_LINGER 0) on both sides,
 *       whatever it was doing, e.g. in the middle of a COMMIT.
 * </ul>
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile long latencyMillis;
  private volatile boolean holding;
  private volatile boolean holdingResponses;
  private volatile boolean open = true;

  TcpProxy(String host, int port) throws IOException {
    this.target = new InetSocketAddress(host, port);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The local port to connect to instead of the target's. */
  int port() {
    return server.getLocalPort();
  }

  void latency(Duration d) {
    latencyMillis = d.toMillis();
  }

  void blackHole(boolean on) {
    holding = on;
  }

  /**
   * Holds the server's bytes only (its answers), not the application's: a request still reaches the
   * server and is executed, e.g. a COMMIT, while its answer waits. A {@link #resetAll} then loses
   * that answer: the application cannot know the outcome.
   */
  void holdResponses(boolean on) {
    holdingResponses = on;
  }

  /** Resets every open connection (both sides); returns how many connections were open. */
  int resetAll() {
    int n = 0;
    for (Socket s : sockets) {
      reset(s);
      n++;
    }
    return n / 2;
  }

  private void acceptLoop() {
    while (open) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket();
        try {
          upstream.connect(target, 5_000);
        } catch (IOException e) {
          reset(client);
          continue;
        }
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, false);
        pump(upstream, client, true);
      } catch (IOException e) {
        if (!open) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean response) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  while ((holding || (response && holdingResponses)) && open) {
                    Thread.sleep(5);
                  }
                  long delay = latencyMillis;
                  if (delay > 0) {
                    Thread.sleep(delay);
                  }
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // reset, closed or interrupted: the other pump ends with it
              } finally {
                reset(from);
                reset(to);
              }
            },
            response ? "tcp-proxy-down" : "tcp-proxy-up");
    t.setDaemon(true);
    t.start();
  }

  private void reset(Socket s) {
    sockets.remove(s);
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed
    }
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    open = false;
    holding = false;
    server.close();
    for (Socket s : sockets) {
      reset(s);
    }
  }
}
