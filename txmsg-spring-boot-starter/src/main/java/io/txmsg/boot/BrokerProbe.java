package io.txmsg.boot;

import io.txmsg.transport.BrokerConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the broker's addresses (the gRPC proxy endpoints, or the NameServers for remoting) accept
 * a TCP connection: a connect and a close, nothing sent, no credentials used. It says the network
 * path is open, not that the proxy or broker serves requests; the runtimes' own errors (publish
 * failures, the reconciler's RETRY rows) say that.
 */
final class BrokerProbe {
  private final String protocol;
  private final List<String> addresses;
  private final int timeoutMillis;

  BrokerProbe(BrokerConnection connection, Duration timeout) {
    this.protocol = connection.protocol();
    this.addresses = addresses(connection.address());
    this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
  }

  /** What one probe found: each address with {@code reachable} or why not. */
  record Result(String protocol, Map<String, String> addresses, boolean anyReachable) {}

  Result probe() {
    Map<String, String> out = new LinkedHashMap<>();
    boolean any = false;
    for (String a : addresses) {
      String outcome = connect(a);
      any |= outcome.equals("reachable");
      out.put(a, outcome);
    }
    return new Result(protocol, out, any);
  }

  private String connect(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return "unreachable: no port in the address";
    }
    try (Socket s = new Socket()) {
      int port = Integer.parseInt(address.substring(colon + 1));
      s.connect(new InetSocketAddress(address.substring(0, colon), port), timeoutMillis);
      return "reachable";
    } catch (NumberFormatException e) {
      return "unreachable: the port is not a number";
    } catch (IOException | IllegalArgumentException e) {
      return "unreachable: " + e.getClass().getSimpleName();
    }
  }

  /** "host:port;host:port" (both clients also accept commas); a URL scheme is dropped. */
  static List<String> addresses(String list) {
    List<String> out = new ArrayList<>();
    if (list == null) {
      return out;
    }
    for (String part : list.split("[;,]")) {
      String a = part.trim();
      int scheme = a.indexOf("://");
      if (scheme >= 0) {
        a = a.substring(scheme + 3);
      }
      if (a.endsWith("/")) {
        a = a.substring(0, a.length() - 1);
      }
      if (!a.isEmpty()) {
        out.add(a);
      }
    }
    return out;
  }
}
