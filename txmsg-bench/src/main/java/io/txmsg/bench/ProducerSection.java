package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.txmsg.producer.TxProducer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/** 1. Producer: throughput and latency of txmsg against the raw client, rocketmq-spring, halves. */
final class ProducerSection {
  static final String TXMSG = "(a) txmsg";
  static final String RAW = "(b) raw client + JDBC journal";
  static final String SPRING = "(c) rocketmq-spring + tx-log table";
  static final String BROKER = "(d) broker alone (tx send+commit)";
  static final String DB = "(d) database alone (insert tx)";
  static final String PROXY_ACK = "(e) txmsg, PROXY_ACK confirmation";
  static final String RAW_ENVELOPE = "(f) = (b) with the txmsg envelope";

  private static final int[] CONCURRENCY = {1, 8, 32};

  private final BenchMain b;
  private final Messages messages;

  /** Per variant and concurrency, one result per round. */
  private final Map<String, Map<Integer, List<Load.Result>>> results = new LinkedHashMap<>();

  /** Seconds waited for the delivery confirmation after each measured txmsg point. */
  private final List<Double> drains = new ArrayList<>();

  ProducerSection(BenchMain b) {
    this.b = b;
    this.messages = new Messages(b.provider);
  }

  void run() throws Exception {
    progress("== 1. producer: txmsg vs raw client vs rocketmq-spring vs broker / database alone");
    Producer raw = rawProducer();
    Producer brokerOnly = brokerOnlyProducer();
    Map<String, Load.Op> ops = operations(raw, brokerOnly);
    List<String> variants = new ArrayList<>(ops.keySet());
    variants.removeIf(v -> !b.opt.variants.contains(v.substring(1, 2)));
    warmUp(variants, ops);
    for (int round = 1; round <= b.opt.rounds; round++) {
      for (int c : CONCURRENCY) {
        runPoint(round, c, variants, ops);
      }
    }
    raw.close();
    brokerOnly.close();
    writeReport();
  }

  // ---------------------------------------------------------------- variants

  /** The raw client's producer; its checker looks the event up in the hand-written journal. */
  private Producer rawProducer() throws Exception {
    return b.provider
        .newProducerBuilder()
        .setClientConfiguration(b.clientConfig)
        .setTopics(b.rawTopic)
        .setTransactionChecker(
            view -> {
              String id = view.getKeys().isEmpty() ? null : view.getKeys().iterator().next();
              try {
                return id != null
                        && Sql.count(
                                b.ds,
                                "SELECT COUNT(*) FROM raw_journal WHERE event_id = '"
                                    + id.replace("'", "")
                                    + "'")
                            == 1
                    ? TransactionResolution.COMMIT
                    : TransactionResolution.UNKNOWN;
              } catch (Exception e) {
                return TransactionResolution.UNKNOWN;
              }
            })
        .build();
  }

  private Producer brokerOnlyProducer() throws Exception {
    return b.provider
        .newProducerBuilder()
        .setClientConfiguration(b.clientConfig)
        .setTopics(b.brokerTopic)
        .setTransactionChecker(view -> TransactionResolution.COMMIT)
        .build();
  }

  /** The variants in their base order (rotated per round); rocketmq-spring runs in its JVM. */
  private Map<String, Load.Op> operations(Producer raw, Producer brokerOnly) {
    Map<String, Load.Op> ops = new LinkedHashMap<>();
    ops.put(DB, id -> dbAlone(id));
    ops.put(BROKER, id -> brokerAlone(brokerOnly, id));
    ops.put(RAW, id -> rawTx(raw, id, false));
    ops.put(TXMSG, id -> txmsg(b.txmsg, b.txTopic, id));
    ops.put(SPRING, null);
    ops.put(RAW_ENVELOPE, id -> rawTx(raw, id, true));
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

  private void dbAlone(String id) throws Exception {
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      BenchMain.insertPayment(c, id);
      c.commit();
    }
  }

  private void brokerAlone(Producer p, String id) throws Exception {
    Transaction tx = p.beginTransaction();
    p.send(messages.raw(b.brokerTopic, id), tx);
    tx.commit();
  }

  private void rawTx(Producer p, String id, boolean envelope) throws Exception {
    Transaction tx = p.beginTransaction();
    p.send(envelope ? messages.envelope(b.rawTopic, id, true) : messages.raw(b.rawTopic, id), tx);
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchMain.insertPayment(c, id);
        insertRawJournal(c, id);
        c.commit();
      } catch (Exception e) {
        c.rollback();
        tx.rollback();
        throw e;
      }
    }
    tx.commit();
  }

  private void insertRawJournal(Connection c, String id) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO raw_journal (event_id, topic, payload, status, created_at)"
                + " VALUES (?, ?, ?, 'COMMITTED', ?)")) {
      ps.setString(1, id);
      ps.setString(2, b.rawTopic);
      ps.setString(3, new String(BenchMain.PAYLOAD, StandardCharsets.UTF_8));
      ps.setTimestamp(4, new Timestamp(System.currentTimeMillis()));
      ps.executeUpdate();
    }
  }

  // ---------------------------------------------------------------- measuring

  /** Every variant once at concurrency 8, not recorded. */
  private void warmUp(List<String> variants, Map<String, Load.Op> ops) throws Exception {
    progress("warm-up: every variant %d ms at concurrency 8", 2 * b.opt.warmupMs + 1000);
    for (String v : variants) {
      measure(v, ops.get(v), 8, 2 * b.opt.warmupMs + 1000, 0);
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
      Load.Result r = measure(v, ops.get(v), c, b.opt.warmupMs, b.opt.measureMs);
      results
          .computeIfAbsent(v, k -> new HashMap<>())
          .computeIfAbsent(c, k -> new ArrayList<>())
          .add(r);
      progress(
          "round %d c=%-2d %-36s %8.0f/s p50 %7.2f ms p99 %7.2f ms%s",
          round,
          c,
          v,
          r.perSecond(),
          r.p50Ms(),
          r.p99Ms(),
          r.errors() > 0 ? " errors " + r.errors() : "");
      if (v.equals(TXMSG)) {
        drains.add(BenchSupport.drain(b.ds));
      }
    }
  }

  private Load.Result measure(String v, Load.Op op, int c, long warm, long measure)
      throws Exception {
    if (v.equals(SPRING)) {
      String[] f = b.spring.call("producer " + c + " " + warm + " " + measure, 120);
      return new Load.Result(
          Long.parseLong(f[0]),
          Long.parseLong(f[1]),
          Double.parseDouble(f[2]),
          Double.parseDouble(f[3]),
          Double.parseDouble(f[4]));
    }
    return Load.run(v.substring(1, 2), c, warm, measure, op);
  }

  private double med(String v, int c, ToDoubleFunction<Load.Result> f) {
    List<Double> vals = new ArrayList<>();
    for (Load.Result x : results.getOrDefault(v, Map.of()).getOrDefault(c, List.of())) {
      vals.add(f.applyAsDouble(x));
    }
    return Stats.median(vals);
  }

  // ---------------------------------------------------------------- report

  private void writeReport() {
    Report rep = b.report;
    rep.h2("1. Producer: throughput and latency for one business row insert");
    rep.p(description());
    for (int c : CONCURRENCY) {
      writeConcurrency(rep, c);
    }
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
        + " each call. Medians over "
        + b.opt.rounds
        + " rounds; the variants are interleaved in a rotating order inside each round, so"
        + " every ratio compares figures measured minutes apart at most. (a) txmsg:"
        + " `template().execute` (half message, attempt + journal rows, the insert, self-check,"
        + " commit, half commit) with the default CONSUMER delivery confirmation running. (b)"
        + " rocketmq-client-java 5.1.0 `beginTransaction/send`, JDBC transaction inserting the"
        + " business row and one hand-written journal row, then `commit`. (c)"
        + " rocketmq-spring 2.3.4 `sendMessageInTransaction` in its own JVM (Spring Boot 3.5,"
        + " remoting protocol via the NameServer), local transaction = business row + tx-log"
        + " row through `TransactionTemplate`/`JdbcTemplate`, checker reads the tx-log table."
        + " (d) the two halves alone: the broker's tx send+commit without a database, and the"
        + " insert transaction without a broker. (e) is (a) with `confirmation(PROXY_ACK)`: no"
        + " delivery-confirmation consumer, rows marked SENT when the commit returns — a"
        + " diagnostic variant that shows what the confirm consumer costs. (f) is (b) sending"
        + " the message txmsg sends (11 envelope properties, keys eventId + business key): a"
        + " diagnostic variant that separates the message's cost from the framework's.";
  }

  private void writeConcurrency(Report rep, int c) {
    rep.h3("Concurrency " + c);
    rep.table("variant", "ops/s", "p50 ms", "p99 ms", "× (b)", "× min(d)");
    double base = med(RAW, c, Load.Result::perSecond);
    double limit =
        Math.min(med(BROKER, c, Load.Result::perSecond), med(DB, c, Load.Result::perSecond));
    for (String v : List.of(TXMSG, PROXY_ACK, RAW, RAW_ENVELOPE, SPRING, BROKER, DB)) {
      double tp = med(v, c, Load.Result::perSecond);
      rep.row(
          v,
          Report.num(tp),
          Report.ms(med(v, c, Load.Result::p50Ms)),
          Report.ms(med(v, c, Load.Result::p99Ms)),
          Report.ratio(tp / base),
          Report.ratio(tp / limit));
    }
    rep.end();
    if (c == 8) {
      writeTargets(rep, base, limit);
    }
  }

  private void writeTargets(Report rep, double base, double limit) {
    double tx = med(TXMSG, 8, Load.Result::perSecond);
    rep.target(
        "producer c=8: txmsg / raw (b)",
        tx / base,
        0.9,
        Report.num(tx) + " vs " + Report.num(base) + " ops/s");
    rep.target(
        "producer c=8: txmsg / min(broker, db)",
        tx / limit,
        0.8,
        Report.num(tx) + " vs " + Report.num(limit) + " ops/s");
    double sp = med(SPRING, 8, Load.Result::perSecond);
    rep.target(
        "producer c=8: txmsg / rocketmq-spring (c)",
        tx / sp,
        1.0,
        Report.num(tx) + " vs " + Report.num(sp) + " ops/s");
  }
}
