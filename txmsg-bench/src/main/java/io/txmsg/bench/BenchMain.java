package io.txmsg.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.DeliveryConfirmation;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TxMessage;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.rocketmq.EmbeddedRocketMQ;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.BrokerConnection;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;

/**
 * Runs the whole comparison (producer, consumer, end-to-end, store, check-back, memory, CDC) and
 * writes docs/benchmarks.md. See docs/benchmarks.md for the command and what each figure means.
 */
public final class BenchMain {
  static final byte[] PAYLOAD =
      "{\"id\":\"p-000000\",\"amount\":100,\"currency\":\"EUR\",\"account\":\"acct-1\"}"
          .getBytes(StandardCharsets.UTF_8);

  final Options opt;
  final Report report = new Report();
  final long started = System.nanoTime();
  TestDatabase kind;
  DatabaseFixture fixture;

  /** On H2, the TCP server every pool (and the rocketmq-spring child) connects through. */
  H2Server h2;

  /** The settings every pool of the run shares, txmsg's and the baselines' alike. */
  Pools pools;

  HikariDataSource ds;

  /** The shuffled order of the variants in each round of each section. */
  VariantOrder order;

  /**
   * The pool every consumer of the consumer and end-to-end sections in this JVM uses, raw and txmsg
   * alike. On MariaDB a pool of its own configured READ COMMITTED, as the README asks of a
   * consumer's pool (unless {@code --consumer-isolation default}: the server's REPEATABLE READ,
   * under which each txmsg consumer transaction sets and restores the level); elsewhere {@link
   * #ds}, already READ COMMITTED.
   */
  HikariDataSource consumerDs;

  Sql sql;
  EmbeddedRocketMQ mq;
  ClientServiceProvider provider = ClientServiceProvider.loadService();
  ClientConfiguration clientConfig;
  TxProducer txmsg;

  /** Meters of (a) txmsg and (e): check-backs answered and rows republished are read from here. */
  final SimpleMeterRegistry txMetrics = new SimpleMeterRegistry();

  /** Meters of (ar) txmsg over remoting. */
  final SimpleMeterRegistry txRemotingMetrics = new SimpleMeterRegistry();

  /**
   * (ar): the txmsg producer over the remoting transport, its own store id and table prefix (the
   * reconciler's due-row query has no store filter, so two producers on one journal would compete
   * for each other's rows).
   */
  TxProducer txmsgRemoting;

  static final String REMOTING_PREFIX = "txr_";

  final SimpleMeterRegistry ackMetrics = new SimpleMeterRegistry();

  /** Meters of (er), the remoting producer with PROXY_ACK confirmation. */
  final SimpleMeterRegistry ackRemotingMetrics = new SimpleMeterRegistry();

  SpringChild spring;

  /** OUTBOX targets the producer section judged; none: the summary says they did not run. */
  int outboxTargets;

  /** CPU used outside the benchmark while the sections run. */
  MachineLoad load;

  final String run = UUID.randomUUID().toString().substring(0, 6);
  final String txTopic = "bench-tx-" + run;
  final String ackTopic = "bench-proxyack-" + run;
  TxProducer txmsgProxyAck;
  TxProducer txmsgRemotingProxyAck;

  /**
   * (e1), (er1): (e) and (er) with {@code sentBatchSize(1)}, the per-row SENT on the caller's
   * thread that PROXY_ACK ran before the batched recorder: the old path in the same rounds.
   */
  TxProducer txmsgProxyAckPerRow;

  TxProducer txmsgRemotingProxyAckPerRow;

  /**
   * (ark): the remoting producer with BROKER_ACK, as a store whose brokers are declared durable.
   */
  TxProducer txmsgRemotingBrokerAck;

  final String ackRemotingTopic = "bench-proxyack-r-" + run;
  final String brokerAckTopic = "bench-brokerack-r-" + run;
  final String e2eTopic = "bench-e2e-" + run;
  final String rawTopic = "bench-raw-" + run;
  final String rawSentTopic = "bench-raw-s-" + run;
  final String rawRemotingSentTopic = "bench-raw-s-r-" + run;
  final String brokerTopic = "bench-broker-" + run;
  final String springTopic = "bench-spring-" + run;
  final String springE2eTopic = "bench-spring-e2e-" + run;
  final String rawE2eTopic = "bench-raw-e2e-" + run;
  final String consumeTopic = "bench-consume-" + run;
  final String txRemotingTopic = "bench-tx-r-" + run;
  final String e2eRemotingTopic = "bench-e2e-r-" + run;
  final String rawRemotingTopic = "bench-raw-r-" + run;
  final String brokerRemotingTopic = "bench-broker-r-" + run;
  final String rawRemotingE2eTopic = "bench-raw-e2e-r-" + run;

  /** Commit times (nanoTime) of e2e events, recorded before the half-message commit. */
  static final ConcurrentHashMap<String, Long> COMMITTED_AT = new ConcurrentHashMap<>();

  static volatile boolean recordCommits;

  BenchMain(Options opt) {
    this.opt = opt;
  }

  public static void main(String[] args) throws Exception {
    Options opt = Options.parse(args);
    BenchMain b = new BenchMain(opt);
    int rc = 0;
    try {
      b.runAll();
    } catch (Throwable e) {
      e.printStackTrace();
      rc = 1;
    } finally {
      b.close();
    }
    System.exit(rc);
  }

  static void progress(String fmt, Object... args) {
    System.out.printf(
        Locale.ROOT,
        "[bench %s] %s%n",
        LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")),
        String.format(Locale.ROOT, fmt, args));
    System.out.flush();
  }

  void runAll() throws Exception {
    kind = TestDatabase.valueOf(opt.db.toUpperCase(Locale.ROOT));
    sql = new Sql(kind);
    order = new VariantOrder(opt.seed);
    progress(
        "txmsg benchmarks on %s, %d rounds, %d ms measured per point (+%d ms warm-up), variant"
            + " order seed %d",
        kind.id(), opt.rounds, opt.measureMs, opt.warmupMs, opt.seed);
    long t0 = System.nanoTime();
    mq = broker().start();
    progress(
        "embedded RocketMQ ready in %.1f s (pid %d, %s)",
        (System.nanoTime() - t0) / 1e9, mq.pid(), String.join(" ", mq.jvmOptions()));
    // Plaintext for every gRPC client: rocketmq-spring (remoting) does not encrypt either, and
    // rocketmq-client-java 5.x enables TLS unless told otherwise.
    clientConfig =
        ClientConfiguration.newBuilder().setEndpoints(mq.grpcEndpoint()).enableSsl(false).build();
    for (String t :
        List.of(
            txTopic,
            ackTopic,
            ackRemotingTopic,
            brokerAckTopic,
            e2eTopic,
            rawTopic,
            rawSentTopic,
            rawRemotingSentTopic,
            brokerTopic,
            springTopic,
            springE2eTopic,
            rawE2eTopic,
            txRemotingTopic,
            e2eRemotingTopic,
            rawRemotingTopic,
            brokerRemotingTopic,
            rawRemotingE2eTopic)) {
      mq.createTopic(t, TopicType.TRANSACTION);
    }
    mq.createTopic(consumeTopic, TopicType.NORMAL);
    fixture = kind.open();
    String url = fixture.jdbcUrl();
    if (kind == TestDatabase.H2) {
      h2 = new H2Server(url);
      url = h2.url();
    }
    pools = new Pools(kind, url);
    ds = pools.open("main");
    consumerDs = ds;
    if (kind == TestDatabase.MARIADB && opt.consumerReadCommitted) {
      consumerDs = pools.open("consumers", "TRANSACTION_READ_COMMITTED");
    }
    Sql.exec(ds, sql.paymentTable());
    Sql.exec(ds, sql.rawJournalTable());
    Sql.exec(ds, sql.rawJournalIndex());
    Sql.exec(ds, sql.handJournalTable());
    for (String index : sql.handJournalIndexes()) {
      Sql.exec(ds, index);
    }
    Sql.exec(ds, sql.rawOutboxTable());
    Sql.exec(ds, sql.rawOutboxIndex());
    Sql.exec(ds, sql.creditTable());
    startTxmsg();
    startSpring();
    load = new MachineLoad(ProcessHandle.current().pid(), mq.pid(), spring.pid());
    load.start();
    if (opt.enabled("producer")) {
      new ProducerSection(this).run();
    }
    if (opt.enabled("consumer")) {
      new ConsumerSection(this).run();
    }
    if (opt.enabled("e2e")) {
      new EndToEndSection(this).run();
    }
    if (opt.enabled("store")) {
      new StoreSection(this).run();
    }
    if (opt.enabled("checkback")) {
      new CheckbackSection(this).run();
    }
    if (opt.enabled("cdc")) {
      new CdcSection(this).run();
    }
    writeReport();
  }

  /** (a) txmsg, (ar) the same over remoting, and (e) the gRPC one with PROXY_ACK confirmation. */
  void startTxmsg() throws Exception {
    ProducerInterceptor commitTimes =
        new ProducerInterceptor() {
          @Override
          public boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
            if (recordCommits) {
              COMMITTED_AT.put(message.eventId(), System.nanoTime());
            }
            return true;
          }
        };
    txmsg =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(connection())
                    .topics(txTopic, e2eTopic)
                    .storeId("bench")
                    .autoCreateSchema(true)) // reconciler on, as in production; its work is counted
            .meterRegistry(txMetrics)
            .interceptor(commitTimes)
            .build();
    // The same producer over remoting: same settings and handler work, only the transport (and,
    // so that the two reconcilers never touch each other's rows, the store id and table prefix).
    txmsgRemoting =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(remotingConnection())
                    .topics(txRemotingTopic, e2eRemotingTopic)
                    .storeId("bench-remoting")
                    .tablePrefix(REMOTING_PREFIX)
                    .autoCreateSchema(true))
            .meterRegistry(txRemotingMetrics)
            .interceptor(commitTimes)
            .build();
    // The same producer with PROXY_ACK confirmation (no confirm consumer): a diagnostic variant.
    txmsgProxyAck =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(connection())
                    .topics(ackTopic)
                    .storeId("bench-proxyack")
                    .confirmation(DeliveryConfirmation.PROXY_ACK)
                    // Off: the journal has no store filter for due rows, so a second reconciler
                    // would compete with (a)'s for the same rows; (e) is a diagnostic variant.
                    .reconcilerEnabled(false))
            .meterRegistry(ackMetrics)
            .build();
    // (er): the remoting producer with PROXY_ACK, so that (ar)/(er) is the remoting confirm
    // group's cost as (a)/(e) is the gRPC one's. Default tables like (e), reconciler off likewise.
    txmsgRemotingProxyAck =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(remotingConnection())
                    .topics(ackRemotingTopic)
                    .storeId("bench-proxyack-r")
                    .confirmation(DeliveryConfirmation.PROXY_ACK)
                    .reconcilerEnabled(false))
            .meterRegistry(ackRemotingMetrics)
            .build();
    // (ark): BROKER_ACK, the remoting default of a store that declares its brokers durable: a
    // synchronous commit, SENT from the broker's answer, no confirm group. The embedded broker
    // flushes asynchronously, so here the declaration only selects the path to measure.
    txmsgRemotingBrokerAck =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(remotingConnection())
                    .topics(brokerAckTopic)
                    .storeId("bench-brokerack-r")
                    .brokersDurable(true)
                    .reconcilerEnabled(false))
            .build();
    // (e1)/(er1): the same two with the per-row path, on the same topics (no consumer reads them).
    txmsgProxyAckPerRow =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(connection())
                    .topics(ackTopic)
                    .storeId("bench-proxyack-1")
                    .confirmation(DeliveryConfirmation.PROXY_ACK)
                    .sentBatchSize(1)
                    .reconcilerEnabled(false))
            .build();
    txmsgRemotingProxyAckPerRow =
        TxProducer.builder()
            .dataSource(ds)
            .settings(
                new TxProducerSettings()
                    .connection(remotingConnection())
                    .topics(ackRemotingTopic)
                    .storeId("bench-proxyack-r1")
                    .confirmation(DeliveryConfirmation.PROXY_ACK)
                    .sentBatchSize(1)
                    .reconcilerEnabled(false))
            .build();
  }

  /**
   * The rocketmq-spring child JVM, on the database under test (the same URL, credentials and pool
   * settings as every pool here, {@link Pools#springArguments()}), writing the journal of
   * (b+)/(br+) ({@link HandJournal}) and the business and credit tables this JVM created.
   */
  void startSpring() throws Exception {
    long t0 = System.nanoTime();
    Path log = opt.logDir.resolve("spring-child.log");
    Files.deleteIfExists(log);
    List<String> args = new ArrayList<>();
    args.add("--rocketmq.name-server=" + mq.namesrvAddress());
    args.add("--rocketmq.producer.group=bench-spring-" + run);
    args.add("--bench.topic=" + springTopic);
    args.add("--bench.e2e-topic=" + springE2eTopic);
    args.add("--bench.e2e-group=bench-spring-e2e-" + run);
    args.add("--bench.journal-table=" + HandJournal.TABLE);
    args.add("--bench.store-id=" + HandJournal.STORE_ID);
    args.addAll(pools.springArguments());
    args.add("--logging.level.root=WARN");
    spring = new SpringChild(opt.springClasses, opt.springClasspath, log, args);
    progress(
        "rocketmq-spring child JVM ready in %.1f s (pid %d, log %s)",
        (System.nanoTime() - t0) / 1e9, spring.pid(), log);
  }

  /** The JVM options of a production broker, scaled to this machine ({@link #broker()}). */
  static final List<String> PRODUCTION_BROKER_TUNING =
      List.of(
          "-XX:G1HeapRegionSize=16m",
          "-XX:G1ReservePercent=25",
          "-XX:InitiatingHeapOccupancyPercent=30",
          "-XX:SoftRefLRUPolicyMSPerMB=0",
          "-XX:+AlwaysPreTouch");

  /**
   * The embedded cluster. By default ({@code --broker-jvm production}) its JVM has the shape
   * RocketMQ's JVM guidance gives a production broker, scaled to this machine: a fixed heap (-Xms =
   * -Xmx), G1 with the guidance's region size, reserve and initiating occupancy, direct memory
   * about twice the heap (its example: 8g heap, 15g direct), the heap touched at start. 2 GiB: a
   * small production broker that leaves this 24 GiB machine room for the benchmark JVM (4 GiB), the
   * rocketmq-spring child (1 GiB), both database servers and the page cache the commit log is read
   * through. {@code --broker-jvm testkit} keeps the test defaults (256 MiB, SerialGC).
   */
  EmbeddedRocketMQ.Builder broker() {
    EmbeddedRocketMQ.Builder b = EmbeddedRocketMQ.builder();
    if (opt.productionBroker) {
      b.minHeap("2g").maxHeap("2g").maxDirectMemory("4g").garbageCollector("-XX:+UseG1GC");
      PRODUCTION_BROKER_TUNING.forEach(b::jvmArgument);
    }
    return b;
  }

  /**
   * How every gRPC txmsg runtime of the benchmark reaches the proxy: plaintext, like the baselines.
   */
  BrokerConnection connection() {
    return BrokerConnection.endpoints(mq.grpcEndpoint()).withTls(false);
  }

  /**
   * How every remoting txmsg runtime reaches the broker: through the NameServer, plaintext (the
   * remoting default, set explicitly).
   */
  BrokerConnection remotingConnection() {
    return BrokerConnection.nameServer(mq.namesrvAddress()).withTls(false);
  }

  /** What the report says of {@link #consumerDs}. */
  String consumerPoolDescription() {
    if (kind != TestDatabase.MARIADB) {
      return "the benchmark's pool (READ COMMITTED, the database's default)";
    }
    return consumerDs != ds
        ? "a pool of its own configured READ COMMITTED (HikariCP `transactionIsolation`, as the"
            + " README asks of a consumer's pool on MariaDB)"
        : "the benchmark's pool at the server's default REPEATABLE READ (`--consumer-isolation"
            + " default`): each txmsg consumer transaction sets READ COMMITTED and restores the"
            + " level, two more round trips per message";
  }

  /** The sum of the counters named {@code name} (all tags) in {@code r}. */
  static long counted(SimpleMeterRegistry r, String name) {
    return (long) r.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  void writeReport() throws Exception {
    double wall = (System.nanoTime() - started) / 1e9;
    StringBuilder md = new StringBuilder();
    md.append("# txmsg benchmarks\n\n");
    md.append(
        "Generated by `io.txmsg.bench.BenchMain` (module txmsg-bench) on "
            + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"))
            + ". Database: **"
            + kind.id()
            + "**. Wall time of the run: **"
            + String.format(Locale.ROOT, "%.0f s", wall)
            + "** ("
            + opt.rounds
            + " rounds, "
            + opt.measureMs
            + " ms measured per point after "
            + opt.warmupMs
            + " ms warm-up).\n\n");
    md.append(
        "This run: sections **"
            + String.join(", ", opt.sections)
            + "**, variants "
            + String.join(", ", opt.variants)
            + "; commit "
            + commit()
            + "; benchmark arguments `"
            + opt.args
            + "`."
            + (opt.sections.containsAll(
                    List.of("producer", "consumer", "e2e", "store", "checkback", "cdc"))
                ? ""
                : " Sections not listed did not run and have no figures in this file.")
            + " "
            + (load == null ? "" : load.describe())
            + "\n\n");
    md.append(readResource("benchmarks-intro.md"));
    md.append("\n## Machine and versions\n\n");
    md.append(machine());
    md.append("\n## Transport and TLS of each variant\n\n");
    md.append(readResource("benchmarks-tls.md"));
    md.append("\n## Database, pools and broker JVM\n\n");
    md.append(setup());
    md.append("\n## Targets\n\n");
    md.append(
        "Goals, never assertions. Each figure is the median of per-round ratios (txmsg ÷ baseline,"
            + " both measured in the same round of this run, the variants in a shuffled order),"
            + " with the min–max of those ratios over the rounds.\n\n");
    if (outboxTargets == 0) {
      report.notRun(
          "producer in OUTBOX mode ÷ hand-written outbox (variants o, or, ho, hor)",
          "≥ " + Report.ratio(OutboxVariants.TARGET));
    }
    md.append(report.summaryTable());
    md.append(report.body());
    // The findings are written by hand after the runs of all three databases, so they live in
    // their own file and are not overwritten by the next run.
    md.append(
        "\n## Findings\n\nWhy each MISS above is missed (profiles, round trips per operation) and"
            + " what would fix it is written by hand after the runs, in"
            + " [benchmarks-findings.md](benchmarks-findings.md).\n");
    Files.createDirectories(opt.out.getParent());
    Files.writeString(opt.out, md.toString());
    progress("wrote %s (wall time %.0f s)", opt.out, wall);
  }

  /** The database, its pools, the broker JVM and the variant order of this run, for the report. */
  String setup() {
    StringBuilder s = new StringBuilder();
    s.append("**Database.** ");
    if (kind == TestDatabase.H2) {
      s.append(
          "H2 in memory, held by the benchmark JVM and served over TCP on the loopback"
              + " (`org.h2.tools.Server`): every variant connects through it, the benchmark's own"
              + " and the rocketmq-spring child JVM alike, so each statement costs every variant"
              + " the same round trip. An embedded connection for the variants in the benchmark"
              + " JVM would let them skip the round trip that the child, which cannot share the"
              + " benchmark JVM's memory, pays; a file database would add disk writes that no"
              + " other H2 figure has. So the H2 figures are those of a database server without"
              + " fsync, not of an in-process database.");
    } else {
      s.append(
          "One "
              + (kind == TestDatabase.MARIADB ? "database" : "schema")
              + " created for the run on the server and dropped after it; every variant writes"
              + " to it, the rocketmq-spring child JVM included (the same URL and credentials).");
    }
    s.append(
        " The tables every variant writes: `payment` (the business row), the narrow"
            + " `raw_journal` of (b), (br), (f) and (d), `hand_journal` (txmsg's journal columns"
            + " and indexes) of (b+), (br+) and (c), `raw_outbox` of (ho)/(hor), `credit` of every"
            + " consumer, and txmsg's own tables.\n\n");
    s.append("**Pools.** ").append(pools.describe(consumerPoolDescription())).append("\n\n");
    s.append("**Broker JVM.** `")
        .append(String.join(" ", mq.jvmOptions()))
        .append("`: ")
        .append(
            opt.productionBroker
                ? "the shape RocketMQ's JVM guidance gives a production broker (a fixed heap, G1"
                    + " with its region size, reserve and initiating occupancy, direct memory"
                    + " about twice the heap as in its 8 GiB heap / 15 GiB direct example, the heap"
                    + " touched at start), scaled to a small broker on this "
                    + memTotal()
                    + " machine, which also holds the benchmark JVM (4 GiB heap), the rocketmq-spring child (1"
                    + " GiB), the database servers and the page cache the commit log is read"
                    + " through. The tests' cluster keeps its defaults (256 MiB, SerialGC); so"
                    + " does this run with `--broker-jvm testkit`."
                : "the test defaults (`--broker-jvm testkit`), not a production shape.")
        .append(" One JVM runs the NameServer, the broker and the proxy (LOCAL mode).\n\n");
    s.append("**Variant order.** Inside each round the variants run one after the other in an")
        .append(" order shuffled anew for every round (and every concurrency), so no variant")
        .append(" always runs right after another or first; the shuffle is seeded: seed **")
        .append(order.seed())
        .append("** (`--seed ")
        .append(order.seed())
        .append("` runs the same orders again). Each section lists its orders.\n");
    return s.toString();
  }

  String machine() throws Exception {
    StringBuilder s = new StringBuilder();
    s.append("| | |\n|---|---|\n");
    s.append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
    s.append("| CPU | ").append(cpuModel()).append(" |\n");
    s.append("| memory | ").append(memTotal()).append(" |\n");
    s.append("| JDK | ")
        .append(System.getProperty("java.vm.name"))
        .append(" ")
        .append(System.getProperty("java.runtime.version"))
        .append(" |\n");
    s.append("| OS | ")
        .append(System.getProperty("os.name"))
        .append(" ")
        .append(System.getProperty("os.version"))
        .append(" |\n");
    s.append("| bench JVM | ")
        .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .append(" |\n");
    try (Connection c = ds.getConnection()) {
      s.append("| database | ")
          .append(c.getMetaData().getDatabaseProductName())
          .append(" ")
          .append(c.getMetaData().getDatabaseProductVersion())
          .append(" (driver ")
          .append(c.getMetaData().getDriverVersion())
          .append(") |\n");
    }
    Properties v = new Properties();
    try (InputStream in = BenchMain.class.getResourceAsStream("/bench-versions.properties")) {
      v.load(in);
    }
    for (String k : new java.util.TreeSet<>(v.stringPropertyNames())) {
      s.append("| ").append(k).append(" | ").append(v.getProperty(k)).append(" |\n");
    }
    return s.toString();
  }

  /** The checked-out commit (short hash, "+ local changes" when the work tree is dirty). */
  static String commit() {
    try {
      String head = git("rev-parse", "--short", "HEAD").trim();
      boolean dirty = !git("status", "--porcelain", "--untracked-files=no").isBlank();
      return "`" + head + "`" + (dirty ? " + local changes" : "");
    } catch (Exception e) {
      return "? (" + e.getMessage() + ")";
    }
  }

  private static String git(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add("git");
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + ": " + out.trim());
    }
    return out;
  }

  static String cpuModel() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          return l.substring(l.indexOf(':') + 1).trim();
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return "?";
  }

  static String memTotal() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (l.startsWith("MemTotal")) {
          long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
          return String.format(Locale.ROOT, "%.1f GiB", kb / 1048576.0);
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return "?";
  }

  static String readResource(String name) throws Exception {
    try (InputStream in = BenchMain.class.getResourceAsStream("/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** RSS of a process in MiB, from /proc/<pid>/status. */
  static double rssMb(String pid) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (Exception e) {
      // not Linux or gone
    }
    return Double.NaN;
  }

  static void insertPayment(Connection c, String id) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, 100);
      ps.executeUpdate();
    }
  }

  void close() {
    for (AutoCloseable c :
        new AutoCloseable[] {
          spring,
          txmsg,
          txmsgRemoting,
          txmsgProxyAck,
          txmsgRemotingProxyAck,
          txmsgProxyAckPerRow,
          txmsgRemotingProxyAckPerRow,
          txmsgRemotingBrokerAck,
          ds,
          consumerDs == ds ? null : consumerDs,
          h2,
          fixture,
          () -> {
            if (mq != null) {
              mq.close();
            }
          }
        }) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        progress("close: %s", e);
      }
    }
  }

  /** Command-line options. */
  static final class Options {
    String db = "h2";
    int rounds = 5;
    long warmupMs = 1000;
    long measureMs = 3000;
    int consumeMessages = 10_000;
    int e2eMessages = 2000;

    /** The end-to-end section's offered rate (events per second, an open loop). */
    double e2eRate = 200;

    /** The seed of the variant order's shuffle; random unless {@code --seed}. */
    long seed = new java.security.SecureRandom().nextLong() & Long.MAX_VALUE;

    /**
     * The broker JVM of a small production broker ({@link BenchMain#broker()}), else the tests'.
     */
    boolean productionBroker = true;

    /**
     * MariaDB: the consumers' pool is READ COMMITTED (README); false measures the server default.
     */
    boolean consumerReadCommitted = true;

    long[] checkbackSizes = {10_000, 1_000_000, 10_000_000};
    List<String> sections = List.of("producer", "consumer", "e2e", "store", "checkback", "cdc");
    List<String> variants =
        List.of(
            "a", "b", "b+", "c", "d", "e", "er", "ark", "f", "al", "ar", "br", "br+", "dr", "o",
            "or", "ho", "hor", "cdc", "cdcr");

    /**
     * The producer section's concurrencies; its targets are judged at 8 (add 32 to see saturation).
     */
    int[] concurrency = {1, 8};

    /** The CDC section's backlog rows and latency events per round; 0: its defaults. */
    int cdcBacklog;

    int cdcMessages;

    boolean quick;

    String args = "";
    Path outDir = Path.of("docs");
    Path out; // default: outDir/benchmarks.md (H2) or benchmarks-<db>.md
    Path logDir = Path.of("target");
    Path springClasses = Path.of("../txmsg-bench-spring/target/classes");
    Path springClasspath = Path.of("../txmsg-bench-spring/target/bench-classpath.txt");

    boolean enabled(String section) {
      return sections.contains(section);
    }

    static Options parse(String[] args) {
      Options o = new Options();
      List<String> a = new ArrayList<>();
      for (String s : args) {
        if (!s.isBlank()) {
          a.addAll(Arrays.asList(s.trim().split("\\s+")));
        }
      }
      // What was asked for, without the paths the bench profile always passes.
      List<String> shown = new ArrayList<>();
      for (int i = 0; i < a.size(); i++) {
        if (List.of("--out-dir", "--log-dir", "--spring-classes", "--spring-classpath")
            .contains(a.get(i))) {
          i++;
        } else {
          shown.add(a.get(i));
        }
      }
      o.args = String.join(" ", shown);
      for (int i = 0; i < a.size(); i++) {
        String k = a.get(i);
        String v = i + 1 < a.size() ? a.get(i + 1) : null;
        switch (k) {
          case "--db" -> o.db = v;
          case "--rounds" -> o.rounds = Integer.parseInt(v);
          case "--warmup-ms" -> o.warmupMs = Long.parseLong(v);
          case "--measure-ms" -> o.measureMs = Long.parseLong(v);
          case "--consume-messages" -> o.consumeMessages = Integer.parseInt(v);
          case "--e2e-messages" -> o.e2eMessages = Integer.parseInt(v);
          case "--e2e-rate" -> o.e2eRate = Double.parseDouble(v);
          case "--cdc-backlog" -> o.cdcBacklog = Integer.parseInt(v);
          case "--cdc-messages" -> o.cdcMessages = Integer.parseInt(v);
          case "--seed" -> o.seed = Long.parseLong(v);
          case "--broker-jvm" ->
              o.productionBroker =
                  switch (v) {
                    case "production" -> true;
                    case "testkit" -> false;
                    default ->
                        throw new IllegalArgumentException(
                            "--broker-jvm must be production or testkit: " + v);
                  };
          case "--consumer-isolation" ->
              o.consumerReadCommitted =
                  switch (v) {
                    case "read-committed" -> true;
                    case "default" -> false;
                    default ->
                        throw new IllegalArgumentException(
                            "--consumer-isolation must be read-committed or default: " + v);
                  };
          case "--checkback-sizes" ->
              o.checkbackSizes = Arrays.stream(v.split(",")).mapToLong(Long::parseLong).toArray();
          case "--sections" -> o.sections = List.of(v.split(","));
          case "--concurrency" ->
              o.concurrency = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
          case "--variants" -> o.variants = List.of(v.split(","));
          case "--out" -> o.out = Path.of(v).toAbsolutePath();
          case "--out-dir" -> o.outDir = Path.of(v).toAbsolutePath();
          case "--log-dir" -> o.logDir = Path.of(v);
          case "--spring-classes" -> o.springClasses = Path.of(v);
          case "--spring-classpath" -> o.springClasspath = Path.of(v);
          case "--quick" -> {
            o.quick = true;
            o.rounds = 1;
            o.warmupMs = 500;
            o.measureMs = 1500;
            o.consumeMessages = 1500;
            o.e2eMessages = 400;
            o.checkbackSizes = new long[] {10_000, 100_000};
            i--;
          }
          default -> throw new IllegalArgumentException("unknown option " + k);
        }
        i++;
      }
      if (o.out == null) {
        o.out =
            o.outDir.resolve("h2".equals(o.db) ? "benchmarks.md" : "benchmarks-" + o.db + ".md");
      }
      return o;
    }
  }

  static Duration seconds(double s) {
    return Duration.ofMillis((long) (s * 1000));
  }
}
