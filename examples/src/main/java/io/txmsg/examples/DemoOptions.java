package io.txmsg.examples;

import io.txmsg.api.DeliveryMode;
import io.txmsg.examples.faults.FaultPlan.Fault;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The demo's command line. Defaults: 2,000 orders, every fault on, an embedded RocketMQ and an H2
 * file database in a fresh temporary directory.
 */
public final class DemoOptions {
  int orders = 2000;
  String endpoint;
  String nameServer;
  String transport = "grpc";
  DeliveryMode mode = DeliveryMode.HALF_MESSAGE;
  String jdbcUrl;
  String user;
  String password = "";
  boolean reset;
  int producerThreads = 8;
  int rate = 20;
  int consumerThreads = 4;
  long slowTxMillis = 4000;
  Duration timeout = Duration.ofMinutes(4);
  Duration progressEvery = Duration.ofSeconds(5);
  final Set<Fault> faults = EnumSet.allOf(Fault.class);

  /**
   * The database user the demo logs in with at {@code url}: {@code --user}, else {@code sa} for H2
   * (the user an H2 database gets when the demo creates it), else none.
   */
  String userFor(String url) {
    if (user != null) {
      return user;
    }
    return url.startsWith("jdbc:h2:") ? "sa" : null;
  }

  /** The usage text printed by {@code --help}. */
  static String usage() {
    StringBuilder s =
        new StringBuilder(
            """
            txmsg payment demo: commits payments with their events, consumes them in three groups
            while faults are injected, then reconciles everything from the database.

              --orders N             payments to commit (default 2000)
              --transport T          grpc (default: through the RocketMQ 5 proxy) or remoting
                                     (straight to the brokers through the NameServer)
              --mode M               half-message (default: a half message committed after the
                                     local transaction, check-backs), outbox (journal row in
                                     the transaction, plain send after commit; NORMAL topic) or
                                     cdc (journal row in the transaction, sent by the CDC relay
                                     from the database's log; NORMAL topic; needs --jdbc-url of
                                     PostgreSQL with wal_level=logical or MariaDB with a ROW
                                     binlog: not H2)
              --name-server h:p      an external NameServer (remoting) instead of the embedded
                                     cluster; same topic and groups as for --endpoint
              --endpoint host:port   an external RocketMQ 5 gRPC proxy instead of the embedded one;
                                     it must already have the topic 'payment' (TRANSACTION, or
                                     NORMAL for --mode outbox) and the
                                     consumer groups points, notification, search-projection
                                     (retry 5 times, backoff 0.5..2 s) and txmsg-confirm-payments
              --jdbc-url URL         the business database (default: H2 file in a temp directory)
              --user U --password P  its credentials (MySQL/MariaDB/PostgreSQL drivers included)
              --reset                delete the rows of the demo's and txmsg's tables first
                                     (needed when the database is not empty)
              --rate N               payments offered per second (default 20: what this demo
                                     sustains on 2 cores with its broker, so the latencies are
                                     the pipeline's); 0 = as fast as the threads go, which
                                     measures throughput and the backlog it builds, not latency
              --producer-threads N   concurrent payment commands (default 8)
              --consumer-threads N   threads per consumer group (default 4)
              --slow-tx-millis MS    duration of a slow local transaction (default 4000; must
                                     exceed the broker's transaction timeout + check interval)
              --timeout-seconds S    how long to wait for quiescence (default 240)
              --no-faults            switch every fault off
            """);
    for (Fault f : Fault.values()) {
      s.append(String.format("  %-22s %s%n", f.flag(), "switch off: " + f.description()));
    }
    return s.toString();
  }

  /**
   * Parses the arguments.
   *
   * @throws IllegalArgumentException on an unknown or malformed argument
   */
  public static DemoOptions parse(String... args) {
    DemoOptions o = new DemoOptions();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--orders" -> o.orders = positive(a, value(args, ++i, a));
        case "--endpoint" -> o.endpoint = value(args, ++i, a);
        case "--name-server" -> {
          o.nameServer = value(args, ++i, a);
          o.transport = "remoting";
        }
        case "--transport" -> {
          o.transport = value(args, ++i, a);
          if (!o.transport.equals("grpc") && !o.transport.equals("remoting")) {
            throw new IllegalArgumentException(
                "--transport must be grpc or remoting, was " + o.transport);
          }
        }
        case "--mode" -> o.mode = mode(value(args, ++i, a));
        case "--jdbc-url" -> o.jdbcUrl = value(args, ++i, a);
        case "--user" -> o.user = value(args, ++i, a);
        case "--password" -> o.password = value(args, ++i, a);
        case "--reset" -> o.reset = true;
        case "--producer-threads" -> o.producerThreads = positive(a, value(args, ++i, a));
        case "--rate" -> o.rate = notNegative(a, value(args, ++i, a));
        case "--consumer-threads" -> o.consumerThreads = positive(a, value(args, ++i, a));
        case "--slow-tx-millis" -> o.slowTxMillis = positive(a, value(args, ++i, a));
        case "--timeout-seconds" ->
            o.timeout = Duration.ofSeconds(positive(a, value(args, ++i, a)));
        case "--no-faults" -> o.faults.clear();
        default -> {
          Fault f = fault(a);
          if (f == null) {
            throw new IllegalArgumentException("unknown argument " + a + " (try --help)");
          }
          o.faults.remove(f);
        }
      }
    }
    if (o.endpoint != null && o.nameServer != null) {
      throw new IllegalArgumentException(
          "give --endpoint (gRPC) or --name-server (remoting), not both");
    }
    if (o.mode == DeliveryMode.CDC && (o.jdbcUrl == null || o.jdbcUrl.startsWith("jdbc:h2:"))) {
      throw new IllegalArgumentException(
          "--mode cdc needs --jdbc-url of PostgreSQL (wal_level=logical) or MariaDB (log_bin,"
              + " binlog_format=ROW): its relay reads the database's own change log, and H2 (the"
              + " demo's default database) has none; use --mode outbox or half-message on H2");
    }
    if (o.endpoint != null && o.transport.equals("remoting")) {
      throw new IllegalArgumentException(
          "--endpoint is a gRPC proxy: use --name-server for remoting");
    }
    return o;
  }

  public int orders() {
    return orders;
  }

  private static DeliveryMode mode(String v) {
    return switch (v) {
      case "half-message" -> DeliveryMode.HALF_MESSAGE;
      case "outbox" -> DeliveryMode.OUTBOX;
      case "cdc" -> DeliveryMode.CDC;
      default ->
          throw new IllegalArgumentException(
              "--mode must be half-message, outbox or cdc, was " + v);
    };
  }

  private static Fault fault(String flag) {
    for (Fault f : Fault.values()) {
      if (f.flag().equals(flag)) {
        return f;
      }
    }
    return null;
  }

  private static String value(String[] args, int i, String name) {
    if (i >= args.length) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    return args[i];
  }

  private static int positive(String name, String v) {
    try {
      int n = Integer.parseInt(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new IllegalArgumentException(name + " must be a positive number, was " + v);
  }

  private static int notNegative(String name, String v) {
    try {
      int n = Integer.parseInt(v);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new IllegalArgumentException(name + " must be 0 or a positive number, was " + v);
  }
}
