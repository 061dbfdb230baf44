package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.txmsg.api.MeterNames;
import io.txmsg.producer.TxProducer;
import io.txmsg.testkit.db.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/**
 * 1. Producer: throughput and latency of txmsg on each transport against the hand-written client
 * with a journal on the same transport, rocketmq-spring, and the halves (broker alone, database
 * alone, both together).
 */
final class ProducerSection {
  static final String TXMSG = "(a) txmsg, gRPC";
  static final String TXMSG_R = "(ar) txmsg, remoting";
  static final String RAW = "(b) raw gRPC client + journal (hand-written)";
  static final String RAW_R = "(br) raw remoting client + journal (hand-written)";
  static final String RAW_SENT =
      "(b+) raw gRPC client + txmsg-shaped journal + batched SENT (hand-written)";
  static final String RAW_R_SENT =
      "(br+) raw remoting client + txmsg-shaped journal + batched SENT (hand-written)";
  static final String SPRING = "(c) rocketmq-spring + txmsg-shaped journal (remoting)";
  static final String BROKER = "(d) broker alone, gRPC (tx send+commit)";
  static final String BROKER_R = "(dr) broker alone, remoting (tx send+commit)";
  static final String DB = "(d) database alone (the statements of (b) and (br))";
  static final String JOINT = "(d) gRPC broker + database together";
  static final String JOINT_BROKER = "(d) gRPC broker, while the database runs";
  static final String JOINT_DB = "(d) database, while the gRPC broker runs";
  static final String JOINT_R = "(dr) remoting broker + database together";
  static final String JOINT_BROKER_R = "(dr) remoting broker, while the database runs";
  static final String JOINT_DB_R = "(dr) database, while the remoting broker runs";
  static final String PROXY_ACK = "(e) txmsg, gRPC, PROXY_ACK confirmation";
  static final String PROXY_ACK_R = "(er) txmsg, remoting, PROXY_ACK confirmation";
  static final String BROKER_ACK_R =
      "(ark) txmsg, remoting, BROKER_ACK confirmation (brokers declared durable)";
  static final String PROXY_ACK_1 =
      "(e1) = (e) with sentBatchSize 1 (SENT per row, caller's thread)";
  static final String PROXY_ACK_R1 =
      "(er1) = (er) with sentBatchSize 1 (SENT per row, caller's thread)";
  static final String RAW_ENVELOPE = "(f) = (b) with the txmsg envelope";

  /** Id prefix of the joint run's database operations (their rows are dropped on H2). */
  private static final String JOINT_DB_IDS = "jd";

  /** The transport a row is measured on: the ratios to (b) and to the joint limit use its own. */
  private enum Via {
    GRPC,
    REMOTING,
    NONE
  }

  /** The concurrency the targets are judged at. */
  private static final int TARGET_C = 8;

  private final BenchMain b;
  private final Messages messages;

  /** The concurrencies measured, from {@code --concurrency} (default 1, 8, 32). */
  private final int[] concurrency;

  /** (o), (or), (ho), (hor): the OUTBOX rows; set while {@link #run} runs. */
  private OutboxVariants outbox;

  /** Per variant and concurrency, one result per round (index = round - 1). */
  private final Map<String, Map<Integer, List<Load.Result>>> results = new LinkedHashMap<>();

  /** Seconds waited for the delivery confirmation after each measured txmsg point. */
  private final List<Double> drains = new ArrayList<>();

  /** Seconds waited for the remoting txmsg producer's delivery confirmation. */
  private final List<Double> drainsRemoting = new ArrayList<>();

  /** Seconds waited after each (b+) / (br+) point until its SENT updates were done. */
  private final Map<String, List<Double>> sentWaits = new LinkedHashMap<>();

  /** The SENT recorders of (b+) and (br+); set while {@link #run} runs. */
  private final Map<String, SentBatcher> batchers = new LinkedHashMap<>();

  /** Check-backs the broker-alone producer answered. */
  private final AtomicLong brokerCheckbacks = new AtomicLong();

  /** Counters before and after the section: check-backs, republishes, spring's check-backs. */
  private final Map<String, long[]> work = new LinkedHashMap<>();

  ProducerSection(BenchMain b) {
    this.b = b;
    this.messages = new Messages(b.provider);
    this.concurrency = b.opt.concurrency;
  }

  void run() throws Exception {
    progress(
        "== 1. producer: txmsg (gRPC, remoting; HALF_MESSAGE, OUTBOX) vs raw clients vs"
            + " rocketmq-spring vs broker / database alone");
    try (OutboxVariants outboxVariants = new OutboxVariants(b);
        RawClient raw = new RawClient(b, b.rawTopic);
        RawClient rawSent = new RawClient(b, b.rawSentTopic, true);
        RawRemotingClient rawR =
            new RawRemotingClient(b, b.rawRemotingTopic, "bench-raw-r-" + b.run, true);
        RawRemotingClient rawRSent =
            RawRemotingClient.withSent(b, b.rawRemotingSentTopic, "bench-raw-s-r-" + b.run);
        RawRemotingClient brokerR =
            new RawRemotingClient(b, b.brokerRemotingTopic, "bench-broker-r-" + b.run, false)) {
      Producer brokerOnly = brokerOnlyProducer();
      outbox = outboxVariants;
      batchers.put(RAW_SENT, rawSent.sent);
      batchers.put(RAW_R_SENT, rawRSent.sent);
      Map<String, Load.Op> ops = operations(raw, rawSent, brokerOnly, rawR, rawRSent, brokerR);
      List<String> variants = new ArrayList<>(ops.keySet());
      variants.removeIf(v -> !b.opt.variants.contains(key(v)));
      progress("variants: %s", variants);
      warmUp(variants, ops);
      long[] before = counters(raw, rawR, brokerR, rawSent, rawRSent);
      outbox.startCounting();
      for (int round = 1; round <= b.opt.rounds; round++) {
        for (int c : concurrency) {
          runPoint(round, c, variants, ops);
        }
      }
      long[] after = counters(raw, rawR, brokerR, rawSent, rawRSent);
      outbox.stopCounting();
      work.put("before", before);
      work.put("after", after);
      brokerOnly.close();
      writeReport(); // inside: the OUTBOX rows read their journals and clients
      batchers.clear();
    }
  }

  /** The name of a variant in {@code --variants}: what its label has in parentheses. */
  static String key(String variant) {
    return variant.substring(1, variant.indexOf(')'));
  }

  /** A variant's name in the report's list of orders: its key, the (d) halves told apart. */
  static String shortName(String variant) {
    return switch (variant) {
      case DB -> "d: database";
      case JOINT -> "d: joint";
      case JOINT_R -> "dr: joint";
      default -> key(variant);
    };
  }

  // ---------------------------------------------------------------- variants

  private Producer brokerOnlyProducer() throws Exception {
    return b.provider
        .newProducerBuilder()
        .setClientConfiguration(b.clientConfig)
        .setTopics(b.brokerTopic)
        .setTransactionChecker(
            view -> {
              brokerCheckbacks.incrementAndGet();
              return TransactionResolution.COMMIT;
            })
        .build();
  }

  /**
   * The variants (shuffled per round, {@link VariantOrder}); spring and the joint runs are special.
   */
  private Map<String, Load.Op> operations(
      RawClient raw,
      RawClient rawSent,
      Producer brokerOnly,
      RawRemotingClient rawR,
      RawRemotingClient rawRSent,
      RawRemotingClient brokerR) {
    Map<String, Load.Op> ops = new LinkedHashMap<>();
    ops.put(DB, id -> RawClient.localTransaction(b, b.rawTopic, id));
    ops.put(BROKER, id -> brokerAlone(brokerOnly, id));
    ops.put(RAW, id -> raw.send(id, false, null));
    ops.put(RAW_SENT, id -> rawSent.send(id, false, null));
    ops.put(TXMSG, id -> txmsg(b.txmsg, b.txTopic, id));
    ops.put(SPRING, null);
    ops.put(RAW_R, id -> rawR.send(id, null));
    ops.put(RAW_R_SENT, id -> rawRSent.send(id, null));
    ops.put(TXMSG_R, id -> txmsg(b.txmsgRemoting, b.txRemotingTopic, id));
    ops.put(BROKER_R, id -> brokerR.send(id, null));
    ops.put(JOINT, null);
    ops.put(JOINT_R, null);
    ops.put(RAW_ENVELOPE, id -> raw.send(id, true, null));
    ops.put(PROXY_ACK, id -> txmsg(b.txmsgProxyAck, b.ackTopic, id));
    ops.put(PROXY_ACK_R, id -> txmsg(b.txmsgRemotingProxyAck, b.ackRemotingTopic, id));
    ops.put(BROKER_ACK_R, id -> txmsg(b.txmsgRemotingBrokerAck, b.brokerAckTopic, id));
    ops.put(PROXY_ACK_1, id -> txmsg(b.txmsgProxyAckPerRow, b.ackTopic, id));
    ops.put(PROXY_ACK_R1, id -> txmsg(b.txmsgRemotingProxyAckPerRow, b.ackRemotingTopic, id));
    outbox.addTo(ops);
    return ops;
  }

  private static void txmsg(TxProducer tx, String topic, String id) throws Exception {
    tx.template()
        .execute(
            Messages.txMessage(topic, id),
            ctx -> {
              BenchMain.insertPayment(ctx.connection(), id);
              return null;
            });
  }

  private void brokerAlone(Producer p, String id) throws Exception {
    Transaction tx = p.beginTransaction();
    p.send(messages.raw(b.brokerTopic, id), tx);
    tx.commit();
  }

  /**
   * {txmsg check-backs, txmsg republished, (e) check-backs, (b)+(f) check-backs, broker-alone
   * check-backs, rocketmq-spring check-backs, (ar) check-backs, (ar) republished, (br) check-backs,
   * remoting broker-alone check-backs, (er) check-backs, (b+) check-backs, (br+) check-backs}.
   */
  private long[] counters(
      RawClient raw,
      RawRemotingClient rawR,
      RawRemotingClient brokerR,
      RawClient rawSent,
      RawRemotingClient rawRSent)
      throws Exception {
    return new long[] {
      BenchMain.counted(b.txMetrics, MeterNames.CHECKBACK),
      BenchMain.counted(b.txMetrics, MeterNames.RECONCILE_REPUBLISHED),
      BenchMain.counted(b.ackMetrics, MeterNames.CHECKBACK),
      raw.checkbacks.get(),
      brokerCheckbacks.get(),
      Long.parseLong(b.spring.call("checkbacks", 30)[0]),
      BenchMain.counted(b.txRemotingMetrics, MeterNames.CHECKBACK),
      BenchMain.counted(b.txRemotingMetrics, MeterNames.RECONCILE_REPUBLISHED),
      rawR.checkbacks.get(),
      brokerR.checkbacks.get(),
      BenchMain.counted(b.ackRemotingMetrics, MeterNames.CHECKBACK),
      rawSent.checkbacks.get(),
      rawRSent.checkbacks.get()
    };
  }

  // ---------------------------------------------------------------- measuring

  /** Every variant once at concurrency 8, not recorded. */
  private void warmUp(List<String> variants, Map<String, Load.Op> ops) throws Exception {
    progress("warm-up: every variant %d ms at concurrency 8", 2 * b.opt.warmupMs + 1000);
    for (String v : variants) {
      measure(v, ops, 8, 2 * b.opt.warmupMs + 1000, 0);
      if (v.equals(TXMSG)) {
        BenchSupport.drain(b.ds);
      } else if (v.equals(TXMSG_R)) {
        BenchSupport.drain(b.ds, BenchMain.REMOTING_PREFIX);
      }
      outbox.afterPoint(v, false);
      awaitSent(v, false);
      awaitProxyAckRecorded(v);
      dropDatabaseAloneRows(v);
    }
  }

  /**
   * After a point of (b+) or (br+): wait until its SENT updates are done, so its backlog does not
   * load the next variant (as after each txmsg point). Recorded only when {@code record}.
   */
  private void awaitSent(String v, boolean record) throws Exception {
    SentBatcher s = batchers.get(v);
    if (s != null) {
      double waited = s.awaitIdle();
      if (record) {
        sentWaits.computeIfAbsent(v, k -> new ArrayList<>()).add(waited);
      }
    }
  }

  /**
   * After a point of (e), (er), (e1), (er1): wait until the store's rows are SENT, so that a
   * backlog of the batched recorder does not load the next variant (the per-row variants have none;
   * they wait the same way for symmetry).
   */
  private void awaitProxyAckRecorded(String v) throws Exception {
    String store =
        switch (v) {
          case PROXY_ACK -> "bench-proxyack";
          case PROXY_ACK_R -> "bench-proxyack-r";
          case PROXY_ACK_1 -> "bench-proxyack-1";
          case PROXY_ACK_R1 -> "bench-proxyack-r1";
          case BROKER_ACK_R -> "bench-brokerack-r";
          default -> null;
        };
    if (store != null) {
      BenchSupport.drainStore(b.ds, store);
    }
  }

  /**
   * Every variant at concurrency {@code c}, in an order shuffled for this round and concurrency.
   */
  private void runPoint(int round, int c, List<String> variants, Map<String, Load.Op> ops)
      throws Exception {
    List<String> order =
        b.order.shuffle("producer", round, c, variants, ProducerSection::shortName);
    for (String v : order) {
      Map<String, Load.Result> measured = measure(v, ops, c, b.opt.warmupMs, b.opt.measureMs);
      measured.forEach(
          (name, r) -> {
            results
                .computeIfAbsent(name, k -> new HashMap<>())
                .computeIfAbsent(c, k -> new ArrayList<>())
                .add(r);
            progress(
                "round %d c=%-2d %-42s %8.0f/s p50 %7.2f ms p99 %7.2f ms%s",
                round,
                c,
                name,
                r.perSecond(),
                r.p50Ms(),
                r.p99Ms(),
                r.errors() > 0 ? " errors " + r.errors() : "");
          });
      if (v.equals(TXMSG)) {
        drains.add(BenchSupport.drain(b.ds));
      } else if (v.equals(TXMSG_R)) {
        drainsRemoting.add(BenchSupport.drain(b.ds, BenchMain.REMOTING_PREFIX));
      }
      outbox.afterPoint(v, true);
      awaitSent(v, true);
      awaitProxyAckRecorded(v);
      dropDatabaseAloneRows(v);
    }
  }

  /** One variant's results by name (the joint run yields two: broker and database). */
  private Map<String, Load.Result> measure(
      String v, Map<String, Load.Op> ops, int c, long warm, long measure) throws Exception {
    if (v.equals(SPRING)) {
      String[] f = b.spring.call("producer " + c + " " + warm + " " + measure, 120);
      return Map.of(
          SPRING,
          new Load.Result(
              Long.parseLong(f[0]),
              Long.parseLong(f[1]),
              Double.parseDouble(f[2]),
              Double.parseDouble(f[3]),
              Double.parseDouble(f[4])));
    }
    if (v.equals(JOINT)) {
      return measureJoint(ops.get(BROKER), ops.get(DB), c, warm, measure, JOINT_BROKER, JOINT_DB);
    }
    if (v.equals(JOINT_R)) {
      return measureJoint(
          ops.get(BROKER_R), ops.get(DB), c, warm, measure, JOINT_BROKER_R, JOINT_DB_R);
    }
    return Map.of(v, Load.run(key(v), c, warm, measure, ops.get(v)));
  }

  /**
   * Broker alone and database alone at the same time, {@code c} threads each: what each half
   * delivers while the other takes its share of the machine. A producer needs both halves per
   * event, so the smaller of the two is the limit any producer on this machine can reach.
   *
   * <p>The database half is paced: it never completes more operations than the broker half has
   * (warm-up included). Unpaced, an in-process H2 ran 50,000 transactions/s and starved the broker
   * half to a quarter of its rate alone, a "limit" that txmsg exceeded, which is not a limit. A
   * producer does one database transaction per broker transaction, so equal counts are the load
   * both halves put on the machine together.
   */
  private Map<String, Load.Result> measureJoint(
      Load.Op broker, Load.Op db, int c, long warm, long measure, String brokerName, String dbName)
      throws Exception {
    // One permit per completed broker transaction; a database operation takes one first. A
    // semaphore, not a polling loop: eight threads polling every 100 µs cost the 2 cores enough
    // to halve the broker half.
    Semaphore brokerDone = new Semaphore(0);
    // A database thread waits for the broker half at most until the measured time ends. Waiting
    // longer would stretch the run's measured seconds (Load.run measures to the last call's end)
    // and understate the database rate.
    long giveUpAt = System.nanoTime() + (warm + measure) * 1_000_000;
    Load.Op pacedBroker =
        id -> {
          broker.run(id);
          brokerDone.release();
        };
    Load.Op pacedDb =
        id -> {
          brokerDone.tryAcquire(Math.max(0, giveUpAt - System.nanoTime()), TimeUnit.NANOSECONDS);
          db.run(id);
        };
    ExecutorService ex = Executors.newFixedThreadPool(2);
    try {
      Future<Load.Result> br = ex.submit(() -> Load.run("jb", c, warm, measure, pacedBroker));
      Future<Load.Result> dr = ex.submit(() -> Load.run(JOINT_DB_IDS, c, warm, measure, pacedDb));
      Map<String, Load.Result> out = new LinkedHashMap<>();
      out.put(brokerName, br.get());
      out.put(dbName, dr.get());
      return out;
    } finally {
      ex.shutdownNow();
    }
  }

  /**
   * On H2 the database lives in this JVM's heap: the database-alone runs insert tens of thousands
   * of rows per second and, kept, filled a 4 GB heap before the last round (the run then measured
   * garbage collection). Their rows are read by nothing, so they go after each point. The other
   * databases keep them, as they keep every variant's rows.
   */
  private void dropDatabaseAloneRows(String v) throws Exception {
    if (b.kind != TestDatabase.H2 || !(v.equals(DB) || v.equals(JOINT) || v.equals(JOINT_R))) {
      return;
    }
    String prefix = v.equals(DB) ? key(DB) + "-%" : JOINT_DB_IDS + "-%";
    try (Connection c = b.ds.getConnection();
        PreparedStatement payments = c.prepareStatement("DELETE FROM payment WHERE id LIKE ?");
        PreparedStatement journal =
            c.prepareStatement("DELETE FROM raw_journal WHERE event_id LIKE ?")) {
      payments.setString(1, prefix);
      payments.executeUpdate();
      journal.setString(1, prefix);
      journal.executeUpdate();
    }
  }

  /** The results of one variant and concurrency, one per round. */
  private List<Load.Result> of(String v, int c) {
    return results.getOrDefault(v, Map.of()).getOrDefault(c, List.of());
  }

  /** One figure per round. */
  private List<Double> perRound(String v, int c, ToDoubleFunction<Load.Result> f) {
    List<Double> vals = new ArrayList<>();
    for (Load.Result x : results.getOrDefault(v, Map.of()).getOrDefault(c, List.of())) {
      vals.add(f.applyAsDouble(x));
    }
    return vals;
  }

  private double med(String v, int c, ToDoubleFunction<Load.Result> f) {
    return Stats.median(perRound(v, c, f));
  }

  /** The joint limit of each round on a transport: min(broker, database) while both ran. */
  private List<Double> jointLimit(int c, Via via) {
    boolean remoting = via == Via.REMOTING;
    List<Double> br = perRound(remoting ? JOINT_BROKER_R : JOINT_BROKER, c, Load.Result::perSecond);
    List<Double> db = perRound(remoting ? JOINT_DB_R : JOINT_DB, c, Load.Result::perSecond);
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < Math.min(br.size(), db.size()); i++) {
      out.add(Math.min(br.get(i), db.get(i)));
    }
    return out;
  }

  private long errors(String v) {
    long n = 0;
    for (List<Load.Result> l : results.getOrDefault(v, Map.of()).values()) {
      for (Load.Result r : l) {
        n += r.errors();
      }
    }
    return n;
  }

  // ---------------------------------------------------------------- report

  private void writeReport() throws Exception {
    Report rep = b.report;
    rep.h2("1. Producer: throughput and latency for one business row insert");
    rep.p(description());
    if (outbox.ran()) {
      rep.p(OutboxVariants.description());
    }
    for (int c : concurrency) {
      writeConcurrency(rep, c);
      outbox.writeConcurrency(rep, c, this::of);
      if (c == TARGET_C) {
        outbox.writeTargets(rep, c, this::of);
      }
    }
    writeWork(rep);
    outbox.writeWork(rep, this::of, concurrency);
    rep.p(
        "After each txmsg point the harness waits until the delivery-confirmation consumer has"
            + " marked every journal row SENT, so its backlog does not load the next variant;"
            + " median wait "
            + Report.num(Stats.median(drains))
            + " s (gRPC), "
            + Report.num(Stats.median(drainsRemoting))
            + " s (remoting).");
  }

  private String description() {
    return "Closed loop: each of *c* threads runs the variant back to back for "
        + b.opt.measureMs
        + " ms after "
        + b.opt.warmupMs
        + " ms of warm-up; throughput = completed operations / measured time; latency of"
        + " each call. "
        + b.opt.rounds
        + " rounds; inside each round the variants run one after the other in an order shuffled"
        + " for every round and concurrency (listed below the tables), and every ratio is"
        + " computed **within a round** (variant ÷ baseline of the same round), then summarised"
        + " as median (min–max) over the rounds. Every variant runs **without TLS** (see the"
        + " transport table above). (a) txmsg over gRPC: `template().execute` (half message,"
        + " attempt + journal rows, the insert, self-check, commit, half commit) with the default"
        + " CONSUMER delivery confirmation and the reconciler running, as in production. (ar) the"
        + " same txmsg code, settings and handler over the remoting transport"
        + " (`BrokerConnection.nameServer(…)`, `RemotingTransport`, rocketmq-client): only the"
        + " transport differs, plus its own store id and table prefix `txr_` so the two"
        + " reconcilers never claim each other's rows (the due-row query has no store filter)."
        + " (b) what a careful user writes by hand on rocketmq-client-java (gRPC):"
        + " `beginTransaction/send`, one JDBC transaction with the business row and a journal row"
        + " (`raw_journal`: event_id primary key, topic, payload, status, created_at, and an index"
        + " on (status, created_at) for a republisher), then `commit`; its `TransactionChecker`"
        + " reads the journal row by event id (COMMIT if found, else UNKNOWN). (br) the same by"
        + " hand on rocketmq-client (remoting): a `TransactionMQProducer` whose"
        + " `sendMessageInTransaction` sends the half message, runs `executeLocalTransaction` ="
        + " exactly the JDBC transaction of (b) into the same `raw_journal` table, and ends the"
        + " transaction; `checkLocalTransaction` reads that table by event id (COMMIT if found,"
        + " else UNKNOW). (b) and (br) mark nothing SENT and run no republisher. **(b+)** and"
        + " **(br+)** are (b) and (br) with the guarantee they lack and the row txmsg writes: the"
        + " journal row has txmsg's journal columns and indexes (`hand_journal`: the columns,"
        + " types and defaults of `txmsg_journal`, its primary key and its four indexes: due,"
        + " aggregate, business key, created), filled as txmsg fills it (aggregate, event type,"
        + " destination, message and business keys, payload and its SHA-256, PENDING,"
        + " next_retry_at); once the client returned from the commit (gRPC: `commit()` answered"
        + " by the proxy; remoting: `sendMessageInTransaction` returned COMMIT after its oneway"
        + " end-transaction) the sending thread queues the event id, and one thread of the"
        + " baseline's own marks the queued rows SENT with one set-based statement per batch"
        + " (`UPDATE hand_journal SET status = 'SENT', sent_at, updated_at WHERE status ="
        + " 'PENDING' AND event_id IN (…)`, up to "
        + SentBatcher.BATCH
        + " ids, one commit; a batch waits up to "
        + SentBatcher.LINGER_MILLIS
        + " ms after its first id for more, since nothing reads SENT before a republisher"
        + " would); after each of their points the"
        + " harness waits until the queue is empty, as it waits for txmsg's confirmations. No"
        + " attempt row (that is txmsg's fence) and no republisher. (c) rocketmq-spring 2.3.4"
        + " `sendMessageInTransaction` in its own JVM (Spring Boot 3.5, remoting via the"
        + " NameServer) on the same database: local transaction = the business row + the"
        + " `hand_journal` row of (b+)/(br+) with the same values, through"
        + " `TransactionTemplate`/`JdbcTemplate`; its checker reads that row; it records nothing"
        + " after the send (the remoting client ends the transaction oneway, so there is no answer"
        + " to record). (d) the halves of (b): the broker's tx send+commit without a database over"
        + " gRPC, the database transaction of (b) (same two inserts, same commit; also that of"
        + " (br)) without a broker, and both **together** (c threads each, at the same time, the"
        + " database half paced so that it never runs ahead of the broker half: one database"
        + " transaction per broker transaction, as a producer needs): the smaller of the two"
        + " joint rates is the limit a producer can reach when both halves share this machine."
        + " (dr) the same over remoting: broker alone = the (br) producer and message with a"
        + " listener that commits without a database, and remoting broker + database together."
        + " Ratios to (b), (b+) and to the joint limit use the row's own transport in the column"
        + " named for it; × (c) compares every row with rocketmq-spring. (e) is (a) with"
        + " `confirmation(PROXY_ACK)` (no confirm consumer; reconciler off), a diagnostic"
        + " variant; (er) the same over remoting, so (ar)/(er) is what the remoting confirm group"
        + " costs. (f) is (b) sending the message txmsg sends (11 envelope properties, keys"
        + " eventId + business key), a diagnostic variant.";
  }

  private void writeConcurrency(Report rep, int c) {
    rep.h3("Concurrency " + c);
    rep.table(
        "variant",
        "ops/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "× (b) gRPC, per round",
        "× (br) remoting, per round",
        "× (b+) gRPC, per round",
        "× (br+) remoting, per round",
        "× (c) rocketmq-spring, per round",
        "× joint limit of its transport");
    List<Double> base = perRound(RAW, c, Load.Result::perSecond);
    List<Double> baseR = perRound(RAW_R, c, Load.Result::perSecond);
    List<Double> baseSent = perRound(RAW_SENT, c, Load.Result::perSecond);
    List<Double> baseRSent = perRound(RAW_R_SENT, c, Load.Result::perSecond);
    List<Double> spring = perRound(SPRING, c, Load.Result::perSecond);
    Map<String, Via> rows = new LinkedHashMap<>();
    rows.put(TXMSG, Via.GRPC);
    rows.put(TXMSG_R, Via.REMOTING);
    rows.put(PROXY_ACK, Via.GRPC);
    rows.put(PROXY_ACK_R, Via.REMOTING);
    rows.put(BROKER_ACK_R, Via.REMOTING);
    rows.put(PROXY_ACK_1, Via.GRPC);
    rows.put(PROXY_ACK_R1, Via.REMOTING);
    rows.put(RAW, Via.GRPC);
    rows.put(RAW_R, Via.REMOTING);
    rows.put(RAW_SENT, Via.GRPC);
    rows.put(RAW_R_SENT, Via.REMOTING);
    rows.put(RAW_ENVELOPE, Via.GRPC);
    rows.put(SPRING, Via.REMOTING);
    rows.put(BROKER, Via.GRPC);
    rows.put(BROKER_R, Via.REMOTING);
    rows.put(DB, Via.NONE);
    rows.put(JOINT_BROKER, Via.GRPC);
    rows.put(JOINT_DB, Via.GRPC);
    rows.put(JOINT_BROKER_R, Via.REMOTING);
    rows.put(JOINT_DB_R, Via.REMOTING);
    for (Map.Entry<String, Via> row : rows.entrySet()) {
      String v = row.getKey();
      List<Double> tp = perRound(v, c, Load.Result::perSecond);
      if (tp.isEmpty()) {
        continue; // not selected in this run
      }
      long errs = 0;
      for (Load.Result r : results.getOrDefault(v, Map.of()).getOrDefault(c, List.of())) {
        errs += r.errors();
      }
      rep.row(
          v,
          Report.num(Stats.median(tp)),
          Report.ms(med(v, c, Load.Result::p50Ms)),
          Report.ms(med(v, c, Load.Result::p99Ms)),
          errs,
          Stats.ratioSpread(tp, base),
          Stats.ratioSpread(tp, baseR),
          Stats.ratioSpread(tp, baseSent),
          Stats.ratioSpread(tp, baseRSent),
          Stats.ratioSpread(tp, spring),
          row.getValue() == Via.NONE ? "–" : Stats.ratioSpread(tp, jointLimit(c, row.getValue())));
    }
    List<Double> limit = jointLimit(c, Via.GRPC);
    List<Double> limitR = jointLimit(c, Via.REMOTING);
    if (!limit.isEmpty()) {
      rep.row(
          "joint limit, gRPC = min(broker, database) while both run",
          Report.num(Stats.median(limit)));
    }
    if (!limitR.isEmpty()) {
      rep.row(
          "joint limit, remoting = min(broker, database) while both run",
          Report.num(Stats.median(limitR)));
    }
    rep.end();
    writeBatchedSent(rep, c);
    if (c == TARGET_C) {
      writeTargets(base, limit, baseR, limitR, spring, baseSent, baseRSent);
    }
  }

  /**
   * The batched PROXY_ACK recording against the per-row one it replaced, per round: (e)/(e1) and
   * (er)/(er1), when the per-row variants ran.
   */
  private void writeBatchedSent(Report rep, int c) {
    StringBuilder sb = new StringBuilder();
    for (String[] pair :
        new String[][] {
          {PROXY_ACK, PROXY_ACK_1, "gRPC"}, {PROXY_ACK_R, PROXY_ACK_R1, "remoting"}
        }) {
      List<Double> batched = perRound(pair[0], c, Load.Result::perSecond);
      List<Double> perRow = perRound(pair[1], c, Load.Result::perSecond);
      if (batched.isEmpty() || perRow.isEmpty()) {
        continue;
      }
      sb.append(sb.length() == 0 ? "" : "; ")
          .append(pair[2])
          .append(" (")
          .append(key(pair[0]))
          .append(")/(")
          .append(key(pair[1]))
          .append(") ")
          .append(Stats.ratioSpread(batched, perRow))
          .append(", p50 ")
          .append(Report.ms(med(pair[0], c, Load.Result::p50Ms)))
          .append(" vs ")
          .append(Report.ms(med(pair[1], c, Load.Result::p50Ms)))
          .append(" ms");
    }
    if (sb.length() > 0) {
      rep.p(
          "PROXY_ACK's SENT recorded in batches off the caller's thread against per row on it"
              + " (throughput, median (min–max) of the per-round ratios, concurrency "
              + c
              + "): "
              + sb
              + ".");
    }
  }

  private void writeTargets(
      List<Double> base,
      List<Double> limit,
      List<Double> baseR,
      List<Double> limitR,
      List<Double> spring,
      List<Double> baseSent,
      List<Double> baseRSent) {
    List<Double> tx = perRound(TXMSG, TARGET_C, Load.Result::perSecond);
    List<Double> txR = perRound(TXMSG_R, TARGET_C, Load.Result::perSecond);
    target(
        "producer HALF_MESSAGE remoting, c="
            + TARGET_C
            + ": txmsg (ar) / rocketmq-spring (c), like for like (same database, same journal row;"
            + " txmsg with its default CONSUMER confirmation)",
        txR,
        spring,
        0.9);
    target(
        "producer HALF_MESSAGE remoting, c="
            + TARGET_C
            + ": txmsg (ark) / rocketmq-spring (c), like for like, txmsg with BROKER_ACK, its"
            + " default for brokers declared durable (the (ar) row above gives CONSUMER beside"
            + " it; the embedded broker itself flushes asynchronously)",
        perRound(BROKER_ACK_R, TARGET_C, Load.Result::perSecond),
        spring,
        0.9);
    target(
        "producer HALF_MESSAGE remoting, c="
            + TARGET_C
            + ": txmsg (ar) / hand-written remoting with SENT (br+)",
        txR,
        baseRSent,
        0.8);
    target(
        "producer HALF_MESSAGE gRPC, c="
            + TARGET_C
            + ": txmsg (a) / hand-written gRPC with SENT (b+)",
        tx,
        baseSent,
        0.75);
    target(
        "producer HALF_MESSAGE gRPC, c=" + TARGET_C + ": txmsg (a) / hand-written gRPC (b)",
        tx,
        base,
        0.75);
    target(
        "producer HALF_MESSAGE remoting, c="
            + TARGET_C
            + ": txmsg (ar) / hand-written remoting (br) (rocketmq-client, narrow journal)",
        txR,
        baseR,
        0.8);
    target(
        "producer gRPC, c=" + TARGET_C + ": txmsg (a) / joint limit (gRPC broker + database)",
        tx,
        limit,
        0.6);
    target(
        "producer remoting, c="
            + TARGET_C
            + ": txmsg (ar) / joint limit (remoting broker + database)",
        txR,
        limitR,
        0.6);
  }

  /** A throughput target: txmsg's per-round rates against the baseline's of the same rounds. */
  private void target(String goal, List<Double> tx, List<Double> base, double threshold) {
    if (tx.isEmpty() || base.isEmpty()) {
      b.report.notRun(goal, "≥ " + Report.ratio(threshold));
      return;
    }
    b.report.target(
        goal,
        Stats.ratios(tx, base),
        threshold,
        Report.num(Stats.median(tx)) + " vs " + Report.num(Stats.median(base)) + " ops/s");
  }

  /** Whether the variant was measured in this run (selected by {@code --variants}). */
  private boolean ran(String v) {
    return results.containsKey(v);
  }

  /** A row of the work table, only for a variant that ran. */
  private void row(Report rep, String v, Object... cells) {
    if (ran(v)) {
      Object[] all = new Object[cells.length + 1];
      all[0] = v;
      System.arraycopy(cells, 0, all, 1, cells.length);
      rep.row(all);
    }
  }

  /** Errors, check-backs answered and republished rows of each variant over the section. */
  private void writeWork(Report rep) {
    long[] d = new long[work.get("after").length];
    for (int i = 0; i < d.length; i++) {
      d[i] = work.get("after")[i] - work.get("before")[i];
    }
    rep.h3("Errors, check-backs and republishes during the measured rounds");
    rep.table("variant", "errors", "check-backs answered", "rows republished");
    row(rep, TXMSG, errors(TXMSG), d[0], d[1]);
    row(rep, TXMSG_R, errors(TXMSG_R), d[6], d[7]);
    row(rep, PROXY_ACK, errors(PROXY_ACK), d[2], "– (reconciler off)");
    row(rep, PROXY_ACK_R, errors(PROXY_ACK_R), d[10], "– (reconciler off)");
    row(rep, BROKER_ACK_R, errors(BROKER_ACK_R), "–", "– (reconciler off)");
    if (ran(RAW) || ran(RAW_ENVELOPE)) {
      rep.row(
          RAW + " and " + RAW_ENVELOPE + " (one producer)",
          errors(RAW) + errors(RAW_ENVELOPE),
          d[3],
          "– (no republisher)");
    }
    row(rep, RAW_R, errors(RAW_R), d[8], "– (no republisher)");
    row(rep, RAW_SENT, errors(RAW_SENT), d[11], "– (no republisher)");
    row(rep, RAW_R_SENT, errors(RAW_R_SENT), d[12], "– (no republisher)");
    row(rep, SPRING, errors(SPRING), d[5], "–");
    if (ran(BROKER) || ran(JOINT_BROKER)) {
      rep.row(BROKER + ", alone and joint", errors(BROKER) + errors(JOINT_BROKER), d[4], "–");
    }
    if (ran(BROKER_R) || ran(JOINT_BROKER_R)) {
      rep.row(BROKER_R + ", alone and joint", errors(BROKER_R) + errors(JOINT_BROKER_R), d[9], "–");
    }
    if (ran(DB) || ran(JOINT_DB) || ran(JOINT_DB_R)) {
      rep.row(
          DB + ", alone and joint", errors(DB) + errors(JOINT_DB) + errors(JOINT_DB_R), "–", "–");
    }
    rep.end();
    writeSentRecording(rep);
    List<String> orders = b.order.drawn("producer");
    if (!orders.isEmpty()) {
      rep.p(
          "Order of the variants in each measured round (seed "
              + b.order.seed()
              + "): "
              + String.join("; ", orders)
              + ".");
    }
  }

  /** How (b+) and (br+) recorded SENT over the whole section (warm-up included). */
  private void writeSentRecording(Report rep) {
    if (!ran(RAW_SENT) && !ran(RAW_R_SENT)) {
      return;
    }
    rep.p("**SENT recording of (b+) and (br+)** (whole section, warm-up included)");
    rep.table(
        "variant",
        "rows marked SENT",
        "UPDATE statements",
        "rows per statement",
        "failed batches",
        "rows left PENDING at the end",
        "median wait after a point, s");
    for (Map.Entry<String, SentBatcher> e : batchers.entrySet()) {
      String v = e.getKey();
      if (!ran(v)) {
        continue;
      }
      SentBatcher s = e.getValue();
      long statements = s.statements.get();
      long pending;
      try {
        pending =
            Sql.count(
                b.ds,
                "SELECT COUNT(*) FROM "
                    + HandJournal.TABLE
                    + " WHERE status = 'PENDING' AND destination = '"
                    + (v.equals(RAW_SENT) ? b.rawSentTopic : b.rawRemotingSentTopic)
                    + "'");
      } catch (Exception ex) {
        throw new IllegalStateException("counting the PENDING rows of " + v, ex);
      }
      rep.row(
          v,
          s.marked.get(),
          statements,
          statements == 0 ? "–" : Report.num((double) s.marked.get() / statements),
          s.failedBatches.get(),
          pending,
          Report.num(Stats.median(sentWaits.getOrDefault(v, List.of()))));
      if (s.firstFailure() != null) {
        progress("%s: first failed SENT batch: %s", v, s.firstFailure());
      }
    }
    rep.end();
  }
}
