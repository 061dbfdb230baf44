package io.txmsg.testkit.transport;

import io.txmsg.rocketmq.GrpcTransport;
import io.txmsg.rocketmq.remoting.RemotingTransport;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.db.TestDatabases;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.BrokerConnection;
import io.txmsg.transport.TopicKind;
import io.txmsg.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The transports a contract test runs on: the in-memory broker (fast, no RocketMQ), and gRPC and
 * remoting on the shared embedded cluster. One contract, every transport:
 *
 * <pre>{@code
 * @ParameterizedTest
 * @MethodSource("io.txmsg.testkit.transport.TestTransport#withDatabases")
 * void commitsDeliver(TestTransport kind, TestDatabase db) throws Exception {
 *   try (TestTransport.Open t = kind.open()) { ... t.transport() ... }
 * }
 * }</pre>
 */
public enum TestTransport {
  IN_MEMORY {
    @Override
    public Open open() {
      InMemoryTransport t = new InMemoryTransport();
      return new Open(
          t,
          (topic, type) -> t.declareTopic(topic, TopicKind.valueOf(type.name())),
          (group, retries) -> t.maxDeliveryAttempts(group, retries + 1));
    }
  },
  GRPC {
    @Override
    public Open open() {
      return grpcOn(EmbeddedRocketMQ.shared());
    }
  },
  REMOTING {
    @Override
    public Open open() {
      return remotingOn(EmbeddedRocketMQ.shared());
    }
  };

  /**
   * How long a test waits for a delivery or a confirmation (SENT comes from one) on a real
   * transport: a liveness bound, not a speed goal; only a failure waits this long. On CI's loaded
   * two-core machine first deliveries have taken more than 40 s: a remoting group whose first route
   * query or offset lookup timed out picks its queues up with the next NameServer poll (30 s) and
   * rebalance (20 s), and a pull suspended just before a message arrived can hold it up to the
   * client's 30 s timeout.
   */
  public static final Duration DELIVERY = Duration.ofSeconds(60);

  /**
   * The client request timeout of the test transports: longer than the 3 s default because the
   * suites share two cores with a forked cluster (and CI with other builds), where a client's first
   * route query at start can take seconds. Production keeps the default.
   */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** Opens this real-broker transport on a given embedded cluster; not for {@link #IN_MEMORY}. */
  public Open on(EmbeddedRocketMQ mq) {
    return switch (this) {
      case GRPC -> grpcOn(mq);
      case REMOTING -> remotingOn(mq);
      case IN_MEMORY ->
          throw new IllegalArgumentException("the in-memory transport has no cluster");
    };
  }

  /** The gRPC transport on a given embedded cluster (e.g. one with special broker settings). */
  public static Open grpcOn(EmbeddedRocketMQ mq) {
    return new Open(
        new GrpcTransport(GRPC.connection(mq)),
        mq::createTopic,
        (group, retries) ->
            mq.createConsumerGroup(group, retries, Duration.ofMillis(500), Duration.ofSeconds(1)));
  }

  /**
   * The connection settings that select this real-broker transport on {@code mq}, for runtimes that
   * open their transport themselves (Spring configurations, settings tests).
   */
  public BrokerConnection connection(EmbeddedRocketMQ mq) {
    BrokerConnection c =
        switch (this) {
          case GRPC -> BrokerConnection.endpoints(mq.grpcEndpoint()).withRequestTimeout(TIMEOUT);
          case REMOTING ->
              BrokerConnection.nameServer(mq.namesrvAddress()).withRequestTimeout(TIMEOUT);
          case IN_MEMORY ->
              throw new IllegalArgumentException("the in-memory transport has no cluster");
        };
    // A cluster started with authentication: its super user's credentials.
    return mq.authenticationUser() == null
        ? c
        : c.withCredentials(mq.authenticationUser(), mq.authenticationPassword());
  }

  /** The remoting transport on a given embedded cluster, through its NameServer. */
  public static Open remotingOn(EmbeddedRocketMQ mq) {
    return new Open(
        new FreshGroupsStartAtFirstMessage(new RemotingTransport(REMOTING.connection(mq)), mq),
        mq::createTopic,
        (group, retries) ->
            mq.createConsumerGroup(group, retries, Duration.ofMillis(500), Duration.ofSeconds(1)));
  }

  /** Opens a transport (and, for a real broker, the shared cluster). */
  public abstract Open open();

  /**
   * Names the transports a run uses, comma-separated ({@code in_memory}, {@code grpc}, {@code
   * remoting}; default all three). The CI's database profile narrows it: the store code a database
   * exercises is the same under every transport, and the H2 run already covers each transport.
   */
  public static final String PROPERTY = "txmsg.test.transports";

  /** The transports enabled for this run (see {@link #PROPERTY}), in declaration order. */
  public static List<TestTransport> enabled() {
    String value = System.getProperty(PROPERTY, "");
    if (value.isBlank()) {
      return List.of(values());
    }
    EnumSet<TestTransport> out = EnumSet.noneOf(TestTransport.class);
    for (String part : value.split(",")) {
      String p = part.trim().toUpperCase(Locale.ROOT);
      if (!p.isEmpty()) {
        try {
          out.add(valueOf(p));
        } catch (IllegalArgumentException e) {
          throw new IllegalStateException(
              PROPERTY + " names an unknown transport '" + part.trim() + "': " + value, e);
        }
      }
    }
    return List.copyOf(out);
  }

  /** The enabled transports of a real broker: gRPC and remoting unless narrowed. */
  public static Stream<TestTransport> real() {
    List<TestTransport> real = enabled().stream().filter(t -> t != IN_MEMORY).toList();
    if (real.isEmpty()) {
      throw new IllegalStateException(PROPERTY + " enables no real-broker transport");
    }
    return real.stream();
  }

  /**
   * Narrows which transports run with which database: {@code <database>:<transport>} pairs,
   * comma-separated (e.g. {@code mariadb:remoting,postgresql:grpc}); a database the value does not
   * name runs with every enabled transport. Default: empty. CI's database step runs MariaDB over
   * remoting and PostgreSQL over gRPC: the SQL a database sees does not depend on the transport
   * (only the transport modules speak RocketMQ), the H2 run covers every transport, and this way
   * both real databases and both transports meet in one run of each test.
   */
  public static final String DATABASE_TRANSPORTS_PROPERTY = "txmsg.test.databaseTransports";

  /**
   * Whether a test runs this transport with {@code db}: true unless {@link
   * #DATABASE_TRANSPORTS_PROPERTY} names {@code db} with other transports only.
   *
   * @throws IllegalStateException if the property names an unknown database or transport, or a
   *     transport this run does not enable ({@link #PROPERTY}): that database would run nothing
   */
  public boolean pairsWith(TestDatabase db) {
    Set<TestTransport> only = databaseTransports().get(db);
    return only == null || only.contains(this);
  }

  static Map<TestDatabase, Set<TestTransport>> databaseTransports() {
    String value = System.getProperty(DATABASE_TRANSPORTS_PROPERTY, "");
    Map<TestDatabase, Set<TestTransport>> out = new EnumMap<>(TestDatabase.class);
    List<TestTransport> enabled = enabled();
    for (String part : value.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      String[] pair = p.split(":");
      try {
        if (pair.length != 2) {
          throw new IllegalArgumentException("not <database>:<transport>");
        }
        TestDatabase db = TestDatabase.valueOf(pair[0].trim().toUpperCase(Locale.ROOT));
        TestTransport t = valueOf(pair[1].trim().toUpperCase(Locale.ROOT));
        if (!enabled.contains(t)) {
          throw new IllegalArgumentException(t + " is not enabled by " + PROPERTY);
        }
        out.computeIfAbsent(db, k -> EnumSet.noneOf(TestTransport.class)).add(t);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            DATABASE_TRANSPORTS_PROPERTY + ": '" + p + "' in '" + value + "': " + e.getMessage(),
            e);
      }
    }
    return out;
  }

  /**
   * The enabled real-broker transports × {@code databases}, each pair as {@code (transport,
   * database)} and narrowed by {@link #DATABASE_TRANSPORTS_PROPERTY}: for tests that choose their
   * own databases (e.g. only those with a change log).
   */
  public static Stream<Arguments> realWith(Collection<TestDatabase> databases) {
    List<Arguments> out = new ArrayList<>();
    real()
        .forEach(
            t -> {
              for (TestDatabase db : databases) {
                if (t.pairsWith(db)) {
                  out.add(Arguments.of(t, db));
                }
              }
            });
    return out.stream();
  }

  /** gRPC and remoting × every enabled database: for tests that need a real broker. */
  public static Stream<Arguments> realWithDatabases() {
    return realWith(TestDatabases.list());
  }

  /**
   * The remoting transport, if enabled, × every enabled database: for behaviour only the remoting
   * client has (a synchronous commit, the broker's channel per producer). Empty when remoting is
   * not enabled, so its tests declare {@code allowZeroInvocations}. Not narrowed by {@link
   * #DATABASE_TRANSPORTS_PROPERTY}: a database paired with gRPC would otherwise never run these.
   */
  public static Stream<Arguments> remotingWithDatabases() {
    if (!enabled().contains(REMOTING)) {
      return Stream.empty();
    }
    return TestDatabases.list().stream().map(db -> Arguments.of(REMOTING, db));
  }

  /**
   * Every transport × every enabled database (see {@link TestDatabases}), narrowed by {@link
   * #DATABASE_TRANSPORTS_PROPERTY}.
   */
  public static Stream<Arguments> withDatabases() {
    List<Arguments> out = new ArrayList<>();
    for (TestTransport t : enabled()) {
      for (TestDatabase db : TestDatabases.list()) {
        if (t.pairsWith(db)) {
          out.add(Arguments.of(t, db));
        }
      }
    }
    return out.stream();
  }

  /** An open transport and how to create a topic on its broker. */
  public static final class Open implements AutoCloseable {
    private final Transport transport;
    private final TopicCreator topics;
    private final GroupCreator groups;

    Open(Transport transport, TopicCreator topics, GroupCreator groups) {
      this.transport = transport;
      this.topics = topics;
      this.groups = groups;
    }

    /**
     * Declares a consumer group whose broker retries a message {@code retryMaxTimes} times (so
     * {@code retryMaxTimes + 1} delivery attempts), backing off 0.5–1 s on a real broker.
     */
    public void createGroup(String group, int retryMaxTimes) {
      groups.create(group, retryMaxTimes);
    }

    public Transport transport() {
      return transport;
    }

    /** The in-memory broker, for its fault switches; null on a real broker. */
    public InMemoryTransport inMemory() {
      return transport instanceof InMemoryTransport m ? m : null;
    }

    public void createTopic(String topic, TopicType type) {
      topics.create(topic, type);
    }

    @Override
    public void close() {
      transport.close();
    }
  }

  @FunctionalInterface
  interface TopicCreator {
    void create(String topic, TopicType type);
  }

  @FunctionalInterface
  interface GroupCreator {
    void create(String group, int retryMaxTimes);
  }
}
