package io.txmsg.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.ConsumerInterceptor;
import io.txmsg.consumer.ReplayResult;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.rocketmq.remoting.RemotingTransport;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.ops.JournalCount;
import io.txmsg.store.ops.OpsQueries;
import io.txmsg.store.schema.SchemaInstaller;
import io.txmsg.testkit.TempDirectories;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.testkit.transport.TestTransport;
import io.txmsg.transport.SubscriptionSpec;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.h2.tools.Server;

/**
 * One scenario's world: a business database reachable from several JVMs (H2 through a TCP server
 * owned by the test JVM, or a fresh MariaDB/PostgreSQL database), the shared embedded broker (or
 * one of the scenario's own), a TRANSACTION topic (a NORMAL one for producers in OUTBOX mode), the
 * two consumer groups, and the checker.
 */
final class World implements AutoCloseable {
  final TestDatabase kind;
  final TestTransport transport;
  final EmbeddedRocketMQ mq;
  final String topic = "rel-" + UUID.randomUUID().toString().substring(0, 8);
  final String points = "points-" + topic;
  final String proj = "proj-" + topic;
  final String store = "store-" + topic;
  final Map<ConsumeOutcome, AtomicLong> outcomes = new ConcurrentHashMap<>();

  /**
   * The outcomes of the events a scenario {@link #watch watches}, per {@link #eventKey}, in order.
   * Only watched events: a long soak's millions of others are only counted in {@link #outcomes}.
   */
  private final Map<String, List<ConsumeOutcome>> watched = new ConcurrentHashMap<>();

  final List<Long> recoveryMillis = new ArrayList<>();
  final String url;
  final String user;
  final String password;
  final HikariDataSource dataSource;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private DatabaseFixture fixture;
  private Server h2;
  private int h2Port;
  private Connection h2Keeper;
  private java.nio.file.Path h2Dir;

  /** The delivery mode of the producer JVMs of this world. */
  final DeliveryMode mode;

  /** The groups' broker retry policy (and the %DLQ% after it), as {@link #World} creates them. */
  private static final int GROUP_RETRIES = 16;

  private static final Duration GROUP_RETRY_INITIAL = Duration.ofMillis(500);
  private static final Duration GROUP_RETRY_MAX = Duration.ofSeconds(2);

  /**
   * How a fault can delay an arrival. {@link #KILL}: a process dies (SIGKILL, a broker restart):
   * its sockets close and the broker sees its channels go at once. {@link #SILENT}: a process or a
   * link to the broker stops with its connections open (SIGSTOP, bytes held): the broker keeps such
   * a client's channel, and what it routes to it, until its channel expiry. {@link #DATABASE}: only
   * a database link fails (no broker channel is involved).
   */
  enum Fault {
    KILL,
    SILENT,
    DATABASE
  }

  /** One fault: when it began and ended (nanoTime). */
  private record FaultWindow(Fault kind, long startNanos, long endNanos) {}

  private final List<FaultWindow> faults = new CopyOnWriteArrayList<>();
  private volatile long openFaultStart = -1;
  private volatile Fault openFault;

  /** The remoting give-up drain of this world's store must have read everything (BrokerGiveUp). */
  private volatile boolean giveUpDrainUsed;

  private final OpsQueries ops;

  World(TestTransport transport, TestDatabase kind) throws Exception {
    this(transport, kind, DeliveryMode.HALF_MESSAGE);
  }

  World(TestTransport transport, TestDatabase kind, DeliveryMode mode) throws Exception {
    this(transport, kind, mode, EmbeddedRocketMQ.shared());
  }

  /** A HALF_MESSAGE world on a cluster of the scenario's own (one it kills or pauses). */
  World(TestTransport transport, TestDatabase kind, EmbeddedRocketMQ mq) throws Exception {
    this(transport, kind, DeliveryMode.HALF_MESSAGE, mq);
  }

  /** A world of {@code mode} on {@code mq} (a cluster of the scenario's own, or the shared one). */
  World(TestTransport transport, TestDatabase kind, DeliveryMode mode, EmbeddedRocketMQ mq)
      throws Exception {
    this.mq = mq;
    this.kind = kind;
    this.transport = transport;
    this.mode = mode;
    if (kind == TestDatabase.H2) {
      try (ServerSocket s = new ServerSocket(0)) {
        h2Port = s.getLocalPort();
      }
      // A file database (WRITE_DELAY=0: durable commits, docs/facts.md#db-h2-write-delay):
      // stopping the TCP server for an outage closed an in-memory database now and then
      // ("Database is already closed").
      h2Dir = Files.createTempDirectory("txmsg-rel-h2");
      String path = h2Dir.resolve("rel").toAbsolutePath().toString();
      h2Keeper = DriverManager.getConnection("jdbc:h2:file:" + path + ";WRITE_DELAY=0", "sa", "");
      startH2();
      url = "jdbc:h2:tcp://127.0.0.1:" + h2Port + "/file:" + path + ";WRITE_DELAY=0";
      user = "sa";
      password = "";
    } else {
      fixture = kind.open();
      HikariDataSource fds = (HikariDataSource) fixture.dataSource();
      url = fixture.jdbcUrl();
      user = fds.getUsername();
      password = fds.getPassword() == null ? "" : fds.getPassword();
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url);
    hc.setUsername(user);
    hc.setPassword(password);
    hc.setMaximumPoolSize(12);
    hc.setConnectionTimeout(3_000);
    hc.setExceptionOverrideClassName(DeadH2Connections.class.getName());
    dataSource = new HikariDataSource(hc);
    SchemaInstaller.installIfMissing(dataSource, "txmsg_");
    ops = new OpsQueries(TxmsgStore.detect(dataSource, "txmsg_"));
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE fact (id VARCHAR(64) PRIMARY KEY, aggregate_id VARCHAR(64) NOT NULL,"
              + " version BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE applied (consumer_group VARCHAR(64) NOT NULL, fact_id VARCHAR(64) NOT NULL,"
              + " version BIGINT NOT NULL, applied_ms BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE projection (aggregate_id VARCHAR(64) PRIMARY KEY, version BIGINT NOT NULL)");
    }
    // OUTBOX and CDC rows go out as normal messages (no half message).
    mq.createTopic(
        topic,
        mode == DeliveryMode.OUTBOX || mode == DeliveryMode.CDC
            ? TopicType.NORMAL
            : TopicType.TRANSACTION);
    mq.createConsumerGroup(points, GROUP_RETRIES, GROUP_RETRY_INITIAL, GROUP_RETRY_MAX);
    mq.createConsumerGroup(proj, GROUP_RETRIES, GROUP_RETRY_INITIAL, GROUP_RETRY_MAX);
  }

  private void startH2() throws Exception {
    h2 = Server.createTcpServer("-tcpPort", Integer.toString(h2Port), "-ifExists").start();
  }

  /**
   * Arguments every child JVM of this world gets unless a call overrides them; the settle window
   * reads the producers' settings with them too (e.g. a CDC world's {@code cdcFallbackAfterMs}).
   */
  private final Map<String, String> defaultArgs = new LinkedHashMap<>();

  /** Adds {@code key, value, ...} to the {@link #defaultArgs} of every later child. */
  void defaultArgs(String... keyValues) {
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      defaultArgs.put(keyValues[i], keyValues[i + 1]);
    }
  }

  Map<String, String> args(String... extra) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("url", url);
    m.put("user", user);
    m.put("password", password);
    m.put("transport", transport.name());
    m.put("endpoint", mq.grpcEndpoint());
    m.put("namesrv", mq.namesrvAddress());
    m.put("topic", topic);
    m.put("store", store);
    m.put("points", points);
    m.put("proj", proj);
    m.put("mode", mode.name());
    m.putAll(defaultArgs);
    for (int i = 0; i + 1 < extra.length; i += 2) {
      m.put(extra[i], extra[i + 1]);
    }
    return m;
  }

  Child producer(String name, String... extra) throws Exception {
    Child c = startProducer(name, extra);
    c.await("READY", Duration.ofSeconds(60));
    return c;
  }

  /**
   * Starts a producer JVM without waiting for it to be READY: several can then start at once (the
   * caller awaits each one's READY).
   */
  Child startProducer(String name, String... extra) throws Exception {
    Child c = Child.start(name, ProducerMain.class, args(extra));
    closeables.add(c);
    return c;
  }

  Child consumer(String name, String... extra) throws Exception {
    Child c = Child.start(name, ConsumerMain.class, args(extra));
    closeables.add(c);
    c.await("READY", Duration.ofSeconds(60));
    return c;
  }

  /** The two groups in this JVM, counting outcomes (duplicates absorbed). */
  TxConsumers consumers() throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return startConsumers();
      } catch (IllegalStateException e) {
        // Right after a broker restart the new group's routes can lag: start again, as an
        // application's startup retry would.
        if (attempt == 5) {
          throw e;
        }
        Thread.sleep(2_000);
      }
    }
  }

  private TxConsumers startConsumers() throws Exception {
    TxConsumers c =
        Handlers.register(TxConsumers.builder(), topic, points, proj, null)
            .dataSource(dataSource)
            .settings(Handlers.settings(transport.connection(mq), topic, points, proj))
            .listener(
                (g, type, id, outcome) -> {
                  outcomes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
                  List<ConsumeOutcome> w = watched.get(eventKey(g, id));
                  if (w != null) {
                    w.add(outcome);
                  }
                })
            .interceptor(new ConsumerInterceptor() {})
            .build();
    closeables.add(c);
    return c;
  }

  /** From now on, records the outcomes this JVM's consumers report for {@code eventId}. */
  void watch(String group, String eventId) {
    watched.putIfAbsent(eventKey(group, eventId), new CopyOnWriteArrayList<>());
  }

  /** The outcomes reported for a {@link #watch watched} event since it was watched, in order. */
  List<ConsumeOutcome> outcomesOf(String group, String eventId) {
    List<ConsumeOutcome> w = watched.get(eventKey(group, eventId));
    if (w == null) {
      throw new IllegalStateException(group + "/" + eventId + " is not watched");
    }
    return List.copyOf(w);
  }

  private static String eventKey(String group, String eventId) {
    return group + "|" + eventId;
  }

  long outcome(ConsumeOutcome o) {
    AtomicLong n = outcomes.get(o);
    return n == null ? 0 : n.get();
  }

  /**
   * The database is unreachable for {@code d}: H2's TCP server stops (every remote session dies,
   * new ones are refused); on MariaDB/PostgreSQL every session of this database is killed again and
   * again.
   */
  void outage(Duration d) throws Exception {
    long until = System.nanoTime() + d.toNanos();
    if (kind == TestDatabase.H2) {
      h2.stop();
      Thread.sleep(d.toMillis());
      startH2();
      return;
    }
    try (Connection admin = DriverManager.getConnection(url, user, password);
        Statement s = admin.createStatement()) {
      while (System.nanoTime() < until) {
        if (kind == TestDatabase.POSTGRESQL) {
          s.execute(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                  + " WHERE datname = current_database() AND pid <> pg_backend_pid()");
        } else {
          List<Long> ids = new ArrayList<>();
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT id FROM information_schema.processlist"
                      + " WHERE db = DATABASE() AND id <> CONNECTION_ID()")) {
            while (rs.next()) {
              ids.add(rs.getLong(1));
            }
          }
          for (long id : ids) {
            try {
              s.execute("KILL " + id);
            } catch (Exception gone) {
              // already gone
            }
          }
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * What the checker found; every count but facts and absorbed must be 0, and the world must have
   * settled: {@code unsettled} names each settle condition that still did not hold when {@link
   * #awaitQuiet} gave up waiting for it (null: all held, or not asked, for {@link #check}).
   */
  record Verdict(
      long facts,
      long lost,
      long phantom,
      long duplicate,
      long stale,
      long stuck,
      long absorbed,
      String unsettled) {
    boolean clean() {
      return lost == 0
          && phantom == 0
          && duplicate == 0
          && stale == 0
          && stuck == 0
          && unsettled == null;
    }

    Verdict unsettled(String why) {
      return new Verdict(facts, lost, phantom, duplicate, stale, stuck, absorbed, why);
    }
  }

  /** An instant fault (a SIGKILL, a broker restart) happens now. */
  void fault(Fault kind) {
    long now = System.nanoTime();
    faults.add(new FaultWindow(kind, now, now));
  }

  /**
   * A fault that lasts (a pause, a black hole, an outage) begins now; {@link #faultEnded} ends it.
   */
  void faultStarted(Fault kind) {
    openFault = kind;
    openFaultStart = System.nanoTime();
  }

  /** The fault begun by {@link #faultStarted} ends now (the process resumed, the link healed). */
  void faultEnded() {
    if (openFault == null) {
      throw new IllegalStateException("no fault started");
    }
    faults.add(new FaultWindow(openFault, openFaultStart, System.nanoTime()));
    openFault = null;
  }

  /** The settle conditions include the store's remoting give-up drain (its reader is alive). */
  void expectGiveUpDrain() {
    giveUpDrainUsed = true;
  }

  /**
   * How long after a fault something can still arrive, from the scenario's actual settings: the
   * producers' (as {@link ProducerMain#settings} builds them from this world's arguments), the
   * consumers' ({@link Handlers#settings}), the groups' retry policy and the running broker's. Each
   * term names one way a late delivery or republish happens:
   *
   * <ul>
   *   <li>the consumers' lease and their RETRY backoff (gRPC, leased delivery), or the broker's
   *       longest redelivery delay level (remoting), and the groups' retry backoff;
   *   <li>the producers' republishAfter (a row not confirmed is republished), their row lease (a
   *       dead reconciler's claim expires), their retry backoff cap plus its 20 % jitter, and in
   *       OUTBOX mode publishAfter, in CDC mode cdcFallbackAfter;
   *   <li>HALF_MESSAGE: the broker's transaction check window, transactionTimeOut +
   *       transactionCheckMax × transactionCheckInterval (a half message can be committed by a
   *       check-back, or given up, until then);
   *   <li>{@link Fault#SILENT} only: the broker's channelExpiredTimeout, counted from the fault's
   *       start (a silent client keeps its channel, and what the broker routes to it, until then; a
   *       killed one's closes at once). {@link #settleDeadline} counts it only for a silence long
   *       enough to expire a channel ({@link #canExpireAChannel}).
   * </ul>
   */
  Map<String, Duration> settleTerms(boolean silent) {
    Map<String, Duration> t = new LinkedHashMap<>();
    TxConsumerSettings cs = Handlers.settings(transport.connection(mq), topic, points, proj);
    SubscriptionSpec.Lease lease = cs.leasedDelivery();
    if (transport == TestTransport.GRPC && lease != null) {
      t.put("consumer lease", lease.duration());
      t.put("consumer retry backoff max", lease.retryMax());
    }
    if (transport == TestTransport.REMOTING) {
      t.put("broker redelivery delay (longest messageDelayLevel)", longestDelayLevel());
    }
    t.put("group retry backoff max", GROUP_RETRY_MAX);
    TxProducerSettings ps = ProducerMain.settings(new Args(argv(args())));
    t.put("republishAfter", ps.republishAfter());
    t.put("producer row lease", ps.leaseDuration());
    t.put(
        "retryBackoffMax (+20 % jitter)",
        ps.retryBackoffMax().plus(ps.retryBackoffMax().dividedBy(5)));
    if (ps.deliveryMode() == DeliveryMode.OUTBOX) {
      t.put("publishAfter", ps.publishAfter());
    }
    if (ps.deliveryMode() == DeliveryMode.CDC) {
      t.put("cdcFallbackAfter", ps.cdcFallbackAfter());
    }
    if (ps.deliveryMode() == DeliveryMode.HALF_MESSAGE) {
      t.put(
          "transaction check window",
          Duration.ofMillis(
              brokerMillis("transactionTimeOut")
                  + brokerMillis("transactionCheckMax")
                      * brokerMillis("transactionCheckInterval")));
    }
    if (silent) {
      t.put("channelExpiredTimeout", Duration.ofMillis(brokerMillis("channelExpiredTimeout")));
    }
    return t;
  }

  /** The largest of {@link #settleTerms}. */
  Duration settleWindow(boolean silent) {
    return settleTerms(silent).values().stream().max(Duration::compareTo).orElseThrow();
  }

  private long brokerMillis(String key) {
    return Long.parseLong(mq.brokerSetting(key).trim());
  }

  /** The longest level of the broker's messageDelayLevel ("1s 5s 10m 2h ..."). */
  private Duration longestDelayLevel() {
    Duration longest = Duration.ZERO;
    for (String level : mq.brokerSetting("messageDelayLevel").trim().split("\\s+")) {
      long n = Long.parseLong(level.substring(0, level.length() - 1));
      Duration d =
          switch (level.charAt(level.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            case 'd' -> Duration.ofDays(n);
            default -> throw new IllegalStateException("delay level " + level);
          };
      longest = d.compareTo(longest) > 0 ? d : longest;
    }
    return longest;
  }

  private static String[] argv(Map<String, String> args) {
    return args.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .toArray(String[]::new);
  }

  /**
   * The earliest moment (nanoTime) after which nothing the recorded faults caused can still arrive:
   * the latest over the faults of (its end + the window without channel expiry) and, for a silence
   * that lasted at least the broker's channel expiry, (its start + the window with it). With no
   * fault recorded: {@code fallback} + the window.
   *
   * <p>Why a shorter silence needs no expiry term: the broker drops a client's channel only once
   * its last heartbeat is channelExpiredTimeout old, seen by a scan that runs every {@link
   * #BROKER_CHANNEL_SCAN}. The last heartbeat before a silence can be up to {@link
   * #CLIENT_HEARTBEAT_MAX} older than the silence's start, so a silence counts as "long" from
   * expiry − heartbeat − scan on. A shorter one leaves the channel in place; what the broker routed
   * to it meanwhile (a check-back, a pulled or popped message) is handled by that client after it
   * resumes, that is after the fault's end, and a popped message it does not acknowledge comes back
   * after the lease, a term of the base window.
   */
  private long settleDeadline(long fallback) {
    long base = settleWindow(false).toNanos();
    if (faults.isEmpty()) {
      return fallback + base;
    }
    long silent = settleWindow(true).toNanos();
    long deadline = Long.MIN_VALUE;
    for (FaultWindow f : faults) {
      deadline = Math.max(deadline, f.endNanos() + base);
      if (canExpireAChannel(f)) {
        deadline = Math.max(deadline, f.startNanos() + silent);
      }
    }
    return deadline;
  }

  /**
   * The longest interval between a client's heartbeats to the broker: rocketmq-client's default
   * heartbeatBrokerInterval (30 s; rocketmq-client-java beats every 10 s). The suite's clients keep
   * the defaults.
   */
  static final Duration CLIENT_HEARTBEAT_MAX = Duration.ofSeconds(30);

  /** How often the broker looks for expired channels (its client housekeeping, every 10 s). */
  static final Duration BROKER_CHANNEL_SCAN = Duration.ofSeconds(10);

  /** Whether a fault is a silence long enough for the broker to drop the client's channel. */
  private boolean canExpireAChannel(FaultWindow f) {
    if (f.kind() != Fault.SILENT) {
      return false;
    }
    Duration expiry = Duration.ofMillis(brokerMillis("channelExpiredTimeout"));
    Duration longSilence = expiry.minus(CLIENT_HEARTBEAT_MAX).minus(BROKER_CHANNEL_SCAN);
    return f.endNanos() - f.startNanos() >= longSilence.toNanos();
  }

  /**
   * Whether a recorded silence was long enough to expire a channel ({@link #canExpireAChannel}).
   */
  private boolean anySilenceOutlastedChannelExpiry() {
    return faults.stream().anyMatch(this::canExpireAChannel);
  }

  /**
   * The settle conditions that do not hold now, or an empty list: no journal row PENDING, SENDING
   * or RETRY (the store's own ops query); each group, and each group's %DLQ% drain, has consumed
   * everything the broker holds for it ({@link EmbeddedRocketMQ#undrained}); where the scenario
   * uses it, the store's give-up drain too.
   */
  List<String> unsettledConditions() {
    List<String> left = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      List<String> pending = new ArrayList<>();
      for (JournalCount n : ops.unfinishedJournalCounts(c)) {
        if (n.getStatus() != JournalStatus.DEAD && n.getCount() > 0) {
          pending.add(n.getStatus() + "=" + n.getCount());
        }
      }
      if (!pending.isEmpty()) {
        left.add("journal rows pending " + pending);
      }
    } catch (Exception e) {
      left.add("journal not readable: " + e);
    }
    for (String g : List.of(points, proj)) {
      drained(left, topic, g);
      drained(left, "%DLQ%" + g, "txmsg-dlq-" + g);
    }
    if (giveUpDrainUsed) {
      drained(left, EmbeddedRocketMQ.GIVE_UP_TOPIC, RemotingTransport.giveUpGroup(store));
    }
    return left;
  }

  private void drained(List<String> left, String topic, String group) {
    try {
      String u = mq.undrained(topic, group);
      if (!u.isEmpty()) {
        left.add(group + " has not consumed everything of " + topic + ":" + u);
      }
    } catch (RuntimeException e) {
      left.add("broker not readable for " + group + " on " + topic + ": " + e.getMessage());
    }
  }

  Verdict check(long expectedParked) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      long facts = count(c, "SELECT COUNT(*) FROM fact");
      // Lost is judged from the handlers' own rows, never from txmsg's consume log: a consume-log
      // row that says SUCCESS without the handler's write behind it must count as lost. The points
      // handler writes an applied row for every fact. The proj handler runs behind the version
      // guard, so a fact it skipped as stale has no applied row of its own: it is covered only if
      // the projection holds a LATER version of its aggregate.
      long lost =
          count(
              c,
              "SELECT COUNT(*) FROM fact f WHERE NOT EXISTS (SELECT 1 FROM applied a"
                  + " WHERE a.consumer_group = ? AND a.fact_id = f.id)",
              points);
      lost +=
          count(
              c,
              "SELECT COUNT(*) FROM fact f WHERE NOT EXISTS (SELECT 1 FROM applied a"
                  + " WHERE a.consumer_group = ? AND a.fact_id = f.id)"
                  + " AND NOT EXISTS (SELECT 1 FROM projection p"
                  + " WHERE p.aggregate_id = f.aggregate_id AND p.version > f.version)",
              proj);
      long phantom =
          count(
              c,
              "SELECT COUNT(*) FROM applied a WHERE NOT EXISTS"
                  + " (SELECT 1 FROM fact f WHERE f.id = a.fact_id)");
      long duplicate =
          count(
              c,
              "SELECT COUNT(*) FROM (SELECT consumer_group, fact_id FROM applied"
                  + " GROUP BY consumer_group, fact_id HAVING COUNT(*) > 1) d");
      long stale =
          count(
              c,
              "SELECT COUNT(*) FROM (SELECT aggregate_id, MAX(version) AS v FROM fact"
                  + " GROUP BY aggregate_id) m LEFT JOIN projection p"
                  + " ON p.aggregate_id = m.aggregate_id WHERE p.version IS NULL OR p.version < m.v");
      long stuck =
          count(c, "SELECT COUNT(*) FROM txmsg_journal WHERE status NOT IN ('SENT', 'ROLLED_BACK')")
              + Math.max(
                  0,
                  count(
                          c,
                          "SELECT COUNT(*) FROM txmsg_consume_log WHERE status <> 'SUCCESS'"
                              + " AND status <> 'SKIPPED_STALE'")
                      - expectedParked);
      return new Verdict(
          facts, lost, phantom, duplicate, stale, stuck, outcome(ConsumeOutcome.DUPLICATE), null);
    }
  }

  /** A dead letter the scenario replays. */
  private record Parked(String group, String eventId, String reason) {}

  /**
   * Replays, as an operator would after an incident, every event of this world's groups that is
   * parked for one of {@code reasons}; prints and returns how many were replayed. Each replay must
   * apply the event ({@code REPLAYED}): anything else fails the run.
   */
  int replayParked(TxConsumers consumers, ParkReason... reasons) throws Exception {
    Set<String> wanted = Arrays.stream(reasons).map(ParkReason::name).collect(Collectors.toSet());
    List<Parked> parked = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumer_group, event_id, reason FROM txmsg_dead_letter"
                    + " WHERE status = 'PARKED' AND consumer_group IN (?, ?)")) {
      ps.setString(1, points);
      ps.setString(2, proj);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (wanted.contains(rs.getString(3))) {
            parked.add(new Parked(rs.getString(1), rs.getString(2), rs.getString(3)));
          }
        }
      }
    }
    for (Parked p : parked) {
      ReplayResult r = consumers.replay(p.group(), p.eventId(), "reliability-" + UUID.randomUUID());
      System.out.println("REPLAYED " + p + ": " + r);
      if (r.status() != ReplayResult.Status.REPLAYED) {
        throw new AssertionError("replay of " + p + " did not apply it: " + r);
      }
    }
    return parked.size();
  }

  /**
   * The journal row of fact {@code factId} ({@code f-N}, business key {@code fact-N}), read with
   * the store's ops query; null if there is none.
   */
  io.txmsg.store.journal.JournalRow journalRow(String factId) throws Exception {
    String key = "fact-" + factId.substring("f-".length());
    try (Connection c = dataSource.getConnection()) {
      List<io.txmsg.store.journal.JournalRow> rows =
          ops.listJournal(
              c, new io.txmsg.store.ops.JournalQuery(List.of(), null, null, key, null, null, 2));
      return rows.isEmpty() ? null : rows.get(0);
    }
  }

  /** Waits until {@code eventId} has a committed attempt row in {@code state}. */
  void awaitAttemptState(String eventId, String state, Duration timeout) throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = dataSource.getConnection()) {
        if (count(
                c,
                "SELECT COUNT(*) FROM txmsg_attempt WHERE event_id = ? AND state = ?",
                eventId,
                state)
            > 0) {
          return;
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no " + state + " attempt of " + eventId + " within " + timeout);
  }

  /**
   * The verdict once nothing can still arrive and nothing is pending anywhere:
   *
   * <ol>
   *   <li>waits (up to {@code timeout}) until the checker is clean;
   *   <li>waits until the {@link #settleWindow settle window} has passed since the last fault
   *       ({@link #settleDeadline});
   *   <li>waits (bounded) until every {@link #unsettledConditions settle condition} holds: no
   *       journal row in flight, every group's and drain's queues consumed;
   *   <li>checks again: that is the verdict. A settle condition that never held within its bound
   *       makes the verdict unclean, naming it: a run never passes without settling.
   * </ol>
   */
  Verdict awaitQuiet(Duration timeout, long expectedParked) throws Exception {
    long called = System.nanoTime();
    awaitClean(timeout, expectedParked);
    long deadline = settleDeadline(called);
    long quietAt = System.nanoTime();
    long wait = deadline - quietAt;
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
    long settleUntil = System.nanoTime() + SETTLE_CONDITIONS_TIMEOUT.toNanos();
    List<String> left = unsettledConditions();
    while (!left.isEmpty() && System.nanoTime() < settleUntil) {
      Thread.sleep(500);
      left = unsettledConditions();
    }
    long settledAt = System.nanoTime();
    System.out.printf(
        "SETTLE %s: window %s (%s faults), waited %d ms for it after quiet, %d ms for the"
            + " conditions%s%n",
        topic,
        settleWindow(anySilenceOutlastedChannelExpiry()),
        faults.size(),
        Math.max(0, wait) / 1_000_000,
        (settledAt - Math.max(quietAt, deadline)) / 1_000_000,
        left.isEmpty() ? "" : "; UNSETTLED " + left);
    for (int attempt = 1; ; attempt++) {
      try {
        Verdict last = check(expectedParked);
        if (last.lost() > 0) {
          describeLost();
        }
        return left.isEmpty()
            ? last
            : last.unsettled(
                String.join("; ", left) + " (after " + SETTLE_CONDITIONS_TIMEOUT + ")");
      } catch (java.sql.SQLException e) {
        if (attempt == 3) {
          throw e;
        }
        Thread.sleep(1_000);
      }
    }
  }

  /**
   * Waits (up to {@code timeout}) until the checker is clean, no longer: a scenario's step between
   * two faults, not a verdict.
   */
  void awaitClean(Duration timeout, long expectedParked) throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      try {
        if (check(expectedParked).clean()) {
          return;
        }
      } catch (java.sql.SQLException e) {
        // Right after an outage the pool may still hold connections of the old sessions.
      }
      Thread.sleep(500);
    }
  }

  /**
   * How long the settle conditions may take to hold once the settle window has passed: a remoting
   * consumer commits its offsets every 5 s, a drain retries every 2 s; anything still moving after
   * this is reported, not waited for.
   */
  private static final Duration SETTLE_CONDITIONS_TIMEOUT = Duration.ofSeconds(Scale.pick(60, 180));

  /**
   * Prints what the database knows about each lost fact (its journal row, the other group's
   * consume-log row, any dead letter), so a failed run says where the event stopped.
   */
  private void describeLost() throws Exception {
    // A consumer thread stuck in a call would hold its message without any row: show them.
    for (java.lang.management.ThreadInfo t :
        java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
      String n = t.getThreadName();
      if (n.startsWith("ConsumeMessageThread") || n.startsWith("RocketmqMessageConsumption")) {
        StringBuilder b = new StringBuilder("THREAD " + n + " " + t.getThreadState());
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(st.length, 25); i++) {
          b.append("\n    at ").append(st[i]);
        }
        System.out.println(b);
      }
    }
    try (Connection c = dataSource.getConnection()) {
      for (String g : List.of(points, proj)) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT f.id, j.status, j.retry_count, j.publish_mode,"
                    + " (SELECT MIN(l.status) FROM txmsg_consume_log l WHERE l.event_id = f.id),"
                    + " (SELECT COUNT(*) FROM txmsg_dead_letter d WHERE d.event_id = f.id)"
                    + " FROM fact f LEFT JOIN txmsg_journal j ON j.event_id = f.id"
                    + " WHERE NOT EXISTS (SELECT 1 FROM txmsg_consume_log l"
                    + " WHERE l.consumer_group = ? AND l.event_id = f.id"
                    + " AND l.status IN ('SUCCESS', 'SKIPPED_STALE'))")) {
          ps.setString(1, g);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              System.out.printf(
                  "LOST group=%s fact=%s journal=%s retries=%s mode=%s any-consume-log=%s"
                      + " dead-letters=%s%n",
                  g,
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6));
            }
          }
        }
      }
    }
  }

  /** The database server's host and port, read from the JDBC URL ({@code //host:port/}). */
  java.net.InetSocketAddress databaseAddress() {
    java.util.regex.Matcher m = DB_ADDRESS.matcher(url);
    if (!m.find()) {
      throw new IllegalStateException("no //host:port/ in " + url);
    }
    return java.net.InetSocketAddress.createUnresolved(m.group(1), Integer.parseInt(m.group(2)));
  }

  /** The JDBC URL with the database server's address replaced by {@code 127.0.0.1:port}. */
  String databaseUrlVia(int port) {
    return DB_ADDRESS.matcher(url).replaceFirst("//127.0.0.1:" + port + "/");
  }

  private static final java.util.regex.Pattern DB_ADDRESS =
      java.util.regex.Pattern.compile("//([^/:]+):(\\d+)/");

  /** Which of these facts have their business row (committed). */
  java.util.Set<String> committed(java.util.Collection<String> factIds) throws Exception {
    java.util.Set<String> out = new java.util.TreeSet<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM fact WHERE id = ?")) {
      for (String id : factIds) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) > 0) {
            out.add(id);
          }
        }
      }
    }
    return out;
  }

  /** When the points group first applied {@code factId} (epoch ms), or -1 if it has not. */
  long appliedMillis(String factId) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT MIN(applied_ms) FROM applied WHERE consumer_group = ? AND fact_id = ?")) {
      ps.setString(1, points);
      ps.setString(2, factId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getObject(1) != null ? rs.getLong(1) : -1;
      }
    }
  }

  /** Waits until the points group has applied {@code factId}; fails after {@code timeout}. */
  void awaitApplied(String factId, Duration timeout) throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      try (Connection c = dataSource.getConnection()) {
        if (count(
                c,
                "SELECT COUNT(*) FROM applied WHERE consumer_group = ? AND fact_id = ?",
                points,
                factId)
            > 0) {
          return;
        }
      }
      if (System.nanoTime() > until) {
        throw new AssertionError(factId + " not applied by " + points + " within " + timeout);
      }
      Thread.sleep(200);
    }
  }

  /**
   * Records one recovery sample measured by the caller (where the consumer's applied_ms cannot be
   * used: a consumer with a skewed clock).
   */
  void recovered(String factId, long millis) {
    recoveryMillis.add(millis);
    System.out.println("RECOVERY " + factId + " " + millis + " ms"); // each sample, for outliers
  }

  /** Fault-to-delivery time of a fact (points group), if it was committed and applied. */
  void recovery(String factId, long faultMillis) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT MIN(applied_ms) FROM applied WHERE consumer_group = ? AND fact_id = ?")) {
      ps.setString(1, points);
      ps.setString(2, factId);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && rs.getObject(1) != null) {
          recovered(factId, Math.max(0, rs.getLong(1) - faultMillis));
        }
      }
    }
  }

  private static long count(Connection c, String sql, String... args) throws Exception {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public void close() throws Exception {
    // Teardown is best effort (the next scenario uses fresh topics, tables and an H2 directory of
    // its own) but never silent: a failure here is printed, not thrown, so it cannot mask the
    // scenario's verdict. CI once saw H2's keeper connection fail to close after the database
    // outage scenario had already passed.
    for (int i = closeables.size() - 1; i >= 0; i--) {
      bestEffort("closing " + closeables.get(i), closeables.get(i)::close);
    }
    bestEffort("closing the pool", dataSource::close);
    if (h2 != null) {
      bestEffort("stopping the H2 server", h2::stop);
      bestEffort("closing the H2 keeper connection", h2Keeper::close);
      bestEffort("deleting " + h2Dir, () -> TempDirectories.deleteRecursively(h2Dir));
    }
    if (fixture != null) {
      fixture.close();
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void bestEffort(String what, Step step) {
    try {
      step.run();
    } catch (Exception e) {
      System.out.println("[world] teardown: " + what + " failed: " + e);
    }
  }
}
