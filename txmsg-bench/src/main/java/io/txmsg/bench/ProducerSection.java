package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.txmsg.producer.TxProducer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/** 1. Producer: throughput and latency of txmsg against the raw client, rocketmq-spring, halves. */
final class ProducerSection {
  static final String TXMSG = "(a) txmsg";
  static final String RAW = "(b) raw client + journal (hand-written)";
  static final String SPRING = "(c) rocketmq-spring + tx-log table";
  static final String BROKER = "(d) broker alone (tx send+commit)";
  static final String DB = "(d) database alone (the statements of (b))";
  static final String JOINT = "(d) broker + database together";
  static final String JOINT_BROKER = "(d) broker, while the database runs";
  static final String JOINT_DB = "(d) database, while the broker runs";
  static final String PROXY_ACK = "(e) txmsg, PROXY_ACK confirmation";
  static final String RAW_ENVELOPE = "(f) = (b) with the txmsg envelope";

  private static final int[] CONCURRENCY = {1, 8, 32};

  /** The concurrency the targets are judged at. */
  private static final int TARGET_C = 8;

  private final BenchMain b;
  private final Messages messages;

  /** Per variant and concurrency, one result per round (index = round - 1). */
  private final Map<String, Map<Integer, List<Load.Result>>> results = new LinkedHashMap<>();

  /** Seconds waited for the delivery confirmation after each measured txmsg point. */
  private final List<Double> drains = new ArrayList<>();

  /** Check-backs the broker-alone producer answered. */
  private final AtomicLong brokerCheckbacks = new AtomicLong();

  /** Counters before and after the section: check-backs, republishes, spring's check-backs. */
  private final Map<String, long[]> work = new LinkedHashMap<>();

  ProducerSection(BenchMain b) {
    this.b = b;
    this.messages = new Messages(b.provider);
  }

  void run() throws Exception {
    progress("== 1. producer: txmsg vs raw client vs rocketmq-spring vs broker / database alone");
    try (RawClient raw = new RawClient(b, b.rawTopic)) {
      Producer brokerOnly = brokerOnlyProducer();
      Map<String, Load.Op> ops = operations(raw, brokerOnly);
      List<String> variants = new ArrayList<>(ops.keySet());
      variants.removeIf(v -> !b.opt.variants.contains(v.substring(1, 2)));
      warmUp(variants, ops);
      long[] before = counters(raw);
      for (int round = 1; round <= b.opt.rounds; round++) {
        for (int c : CONCURRENCY) {
          runPoint(round, c, variants, ops);
        }
      }
      long[] after = counters(raw);
      work.put("before", before);
      work.put("after", after);
      brokerOnly.close();
    }
    writeReport();
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

  /** The variants in their base order (rotated per round); spring and joint are special. */
  private Map<String, Load.Op> operations(RawClient raw, Producer brokerOnly) {
    Map<String, Load.Op> ops = new LinkedHashMap<>();
    ops.put(DB, id -> RawClient.localTransaction(b, b.rawTopic, id));
    ops.put(BROKER, id -> brokerAlone(brokerOnly, id));
    ops.put(RAW, id -> raw.send(id, false, null));
    ops.put(TXMSG, id -> txmsg(b.txmsg, b.txTopic, id));
    ops.put(SPRING, null);
    ops.put(JOINT, null);
    ops.put(RAW_ENVELOPE, id -> raw.send(id, true, null));
    ops.put(PROXY_ACK, id -> txmsg(b.txmsgProxyAck, b.ackTopic, id));
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
   * check-backs, rocketmq-spring check-backs}.
   */
  private long[] counters(RawClient raw) throws Exception {
    return new long[] {
      BenchMain.counted(b.txMetrics, "txmsg.checkback"),
      BenchMain.counted(b.txMetrics, "txmsg.reconcile.republished"),
      BenchMain.counted(b.ackMetrics, "txmsg.checkback"),
      raw.checkbacks.get(),
      brokerCheckbacks.get(),
      Long.parseLong(b.spring.call("checkbacks", 30)[0])
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
      }
    }
  }

  /** Every variant at concurrency {@code c}, in an order rotated by round and concurrency. */
  private void runPoint(int round, int c, List<String> variants, Map<String, Load.Op> ops)
      throws Exception {
    List<String> order = new ArrayList<>(variants);
    Collections.rotate(order, round + c);
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
      }
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
      return measureJoint(ops.get(BROKER), ops.get(DB), c, warm, measure);
    }
    return Map.of(v, Load.run(v.substring(1, 2), c, warm, measure, ops.get(v)));
  }

  /**
   * Broker alone and database alone at the same time, {@code c} threads each: what each half
   * delivers while the other takes its share of the machine. A producer needs both halves per
   * event, so the smaller of the two is the limit any producer on this machine can reach.
   */
  private Map<String, Load.Result> measureJoint(
      Load.Op broker, Load.Op db, int c, long warm, long measure) throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(2);
    try {
      Future<Load.Result> br = ex.submit(() -> Load.run("d", c, warm, measure, broker));
      Future<Load.Result> dr = ex.submit(() -> Load.run("j", c, warm, measure, db));
      Map<String, Load.Result> out = new LinkedHashMap<>();
      out.put(JOINT_BROKER, br.get());
      out.put(JOINT_DB, dr.get());
      return out;
    } finally {
      ex.shutdownNow();
    }
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

  /** The joint limit of each round: min(broker, database) while both ran. */
  private List<Double> jointLimit(int c) {
    List<Double> br = perRound(JOINT_BROKER, c, Load.Result::perSecond);
    List<Double> db = perRound(JOINT_DB, c, Load.Result::perSecond);
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

  private void writeReport() {
    Report rep = b.report;
    rep.h2("1. Producer: throughput and latency for one business row insert");
    rep.p(description());
    for (int c : CONCURRENCY) {
      writeConcurrency(rep, c);
    }
    writeWork(rep);
    rep.p(
        "After each txmsg point the harness waits until the delivery-confirmation consumer has"
            + " marked every journal row SENT, so its backlog does not load the next variant;"
            + " median wait "
            + Report.num(Stats.median(drains))
            + " s.");
  }

  private String description() {
    return "Closed loop: each of *c* threads runs the variant back to back for "
        + b.opt.measureMs
        + " ms after "
        + b.opt.warmupMs
        + " ms of warm-up; throughput = completed operations / measured time; latency of"
        + " each call. "
        + b.opt.rounds
        + " rounds; inside each round the variants run one after the other in an order rotated"
        + " every round, and every ratio is computed **within a round** (txmsg ÷ baseline of the"
        + " same round), then summarised as median (min–max) over the rounds. (a) txmsg:"
        + " `template().execute` (half message, attempt + journal rows, the insert, self-check,"
        + " commit, half commit) with the default CONSUMER delivery confirmation and the"
        + " reconciler running, as in production. (b) what a careful user writes by hand on"
        + " rocketmq-client-java 5.1.0: `beginTransaction/send`, one JDBC transaction with the"
        + " business row and a journal row (`raw_journal`: event_id primary key, topic, payload,"
        + " status, created_at, and an index on (status, created_at) for a republisher), then"
        + " `commit`; its `TransactionChecker` reads the journal row by event id (COMMIT if"
        + " found, else UNKNOWN). (b) marks nothing SENT and runs no republisher. (c)"
        + " rocketmq-spring 2.3.4 `sendMessageInTransaction` in its own JVM (Spring Boot 3.5,"
        + " remoting protocol via the NameServer), local transaction = business row + tx-log"
        + " row through `TransactionTemplate`/`JdbcTemplate`, checker reads the tx-log table."
        + " (d) the two halves of (b): the broker's tx send+commit without a database, the"
        + " database transaction of (b) (same two inserts, same commit) without a broker, and"
        + " both **together** (c threads each, at the same time): the smaller of the two joint"
        + " rates is the limit a producer can reach when both halves share this machine. (e) is"
        + " (a) with `confirmation(PROXY_ACK)` (no confirm consumer; reconciler off), a"
        + " diagnostic variant. (f) is (b) sending the message txmsg sends (11 envelope"
        + " properties, keys eventId + business key), a diagnostic variant.";
  }

  private void writeConcurrency(Report rep, int c) {
    rep.h3("Concurrency " + c);
    rep.table(
        "variant", "ops/s", "p50 ms", "p99 ms", "errors", "× (b), per round", "× joint limit");
    List<Double> base = perRound(RAW, c, Load.Result::perSecond);
    List<Double> limit = jointLimit(c);
    for (String v :
        List.of(TXMSG, PROXY_ACK, RAW, RAW_ENVELOPE, SPRING, BROKER, DB, JOINT_BROKER, JOINT_DB)) {
      List<Double> tp = perRound(v, c, Load.Result::perSecond);
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
          tp.isEmpty() ? "–" : Stats.spread(Stats.ratios(tp, base)),
          tp.isEmpty() ? "–" : Stats.spread(Stats.ratios(tp, limit)));
    }
    rep.row("joint limit = min(broker, database) while both run", Report.num(Stats.median(limit)));
    rep.end();
    if (c == TARGET_C) {
      writeTargets(base, limit);
    }
  }

  private void writeTargets(List<Double> base, List<Double> limit) {
    List<Double> tx = perRound(TXMSG, TARGET_C, Load.Result::perSecond);
    b.report.target(
        "producer HALF_MESSAGE gRPC, c=" + TARGET_C + ": txmsg (a) / hand-written (b)",
        Stats.ratios(tx, base),
        0.75,
        Report.num(Stats.median(tx)) + " vs " + Report.num(Stats.median(base)) + " ops/s");
    b.report.target(
        "producer c=" + TARGET_C + ": txmsg (a) / joint limit (broker + database together)",
        Stats.ratios(tx, limit),
        0.6,
        Report.num(Stats.median(tx)) + " vs " + Report.num(Stats.median(limit)) + " ops/s");
  }

  /** Errors, check-backs answered and republished rows of each variant over the section. */
  private void writeWork(Report rep) {
    long[] d = new long[work.get("after").length];
    for (int i = 0; i < d.length; i++) {
      d[i] = work.get("after")[i] - work.get("before")[i];
    }
    rep.h3("Errors, check-backs and republishes during the measured rounds");
    rep.table("variant", "errors", "check-backs answered", "rows republished");
    rep.row(TXMSG, errors(TXMSG), d[0], d[1]);
    rep.row(PROXY_ACK, errors(PROXY_ACK), d[2], "– (reconciler off)");
    rep.row(
        RAW + " and " + RAW_ENVELOPE + " (one producer)",
        errors(RAW) + errors(RAW_ENVELOPE),
        d[3],
        "– (no republisher)");
    rep.row(SPRING, errors(SPRING), d[5], "–");
    rep.row(BROKER + ", alone and joint", errors(BROKER) + errors(JOINT_BROKER), d[4], "–");
    rep.row(DB + ", alone and joint", errors(DB) + errors(JOINT_DB), "–", "–");
    rep.end();
  }
}
