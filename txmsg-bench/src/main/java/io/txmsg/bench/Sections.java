package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.api.CheckbackRequest;
import io.txmsg.api.Envelope;
import io.txmsg.api.PayloadHashes;
import io.txmsg.api.Resolution;
import io.txmsg.api.TxMessage;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.rocketmq.JournalCheckbackResolver;
import io.txmsg.rocketmq.Reconciler;
import io.txmsg.rocketmq.TxMessagingSettings;
import io.txmsg.store.Archiver;
import io.txmsg.store.SchemaInstaller;
import io.txmsg.store.TxmsgStore;
import io.txmsg.testkit.TempDirectories;
import io.txmsg.testkit.db.DatabaseFixture;
import io.txmsg.testkit.db.TestDatabase;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/** The benchmark sections; each adds its tables to the report. */
final class Sections {
  private final BenchMain b;
  private final ExecutorService closer = Executors.newCachedThreadPool();

  Sections(BenchMain b) {
    this.b = b;
  }

  // ---------------------------------------------------------------- 1. producer

  static final String TXMSG = "(a) txmsg";
  static final String RAW = "(b) raw client + JDBC journal";
  static final String SPRING = "(c) rocketmq-spring + tx-log table";
  static final String BROKER = "(d) broker alone (tx send+commit)";
  static final String DB = "(d) database alone (insert tx)";
  static final String PROXY_ACK = "(e) txmsg, PROXY_ACK confirmation";
  static final String RAW_ENVELOPE = "(f) = (b) with the txmsg envelope";

  void producer() throws Exception {
    progress("== 1. producer: txmsg vs raw client vs rocketmq-spring vs broker / database alone");
    Producer raw =
        b.provider
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
    Producer brokerOnly =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig)
            .setTopics(b.brokerTopic)
            .setTransactionChecker(view -> TransactionResolution.COMMIT)
            .build();
    Map<String, Load.Op> ops = new LinkedHashMap<>();
    ops.put(DB, id -> dbAlone(id));
    ops.put(BROKER, id -> brokerAlone(brokerOnly, id));
    ops.put(RAW, id -> rawTx(raw, id, false));
    ops.put(
        TXMSG,
        id ->
            b.txmsg
                .template()
                .execute(
                    message(b.txTopic, id),
                    ctx -> {
                      BenchMain.insertPayment(ctx.connection(), id);
                      return null;
                    }));
    ops.put(SPRING, null);
    ops.put(RAW_ENVELOPE, id -> rawTx(raw, id, true));
    ops.put(
        PROXY_ACK,
        id ->
            b.txmsgProxyAck
                .template()
                .execute(
                    message(b.ackTopic, id),
                    ctx -> {
                      BenchMain.insertPayment(ctx.connection(), id);
                      return null;
                    }));
    List<String> variants = new ArrayList<>(ops.keySet());
    variants.removeIf(v -> !b.opt.variants.contains(v.substring(1, 2)));
    int[] concurrency = {1, 8, 32};
    Map<String, Map<Integer, List<Load.Result>>> results = new LinkedHashMap<>();
    List<Double> drains = new ArrayList<>();
    // Warm-up: every variant once at concurrency 8.
    progress("warm-up: every variant %d ms at concurrency 8", 2 * b.opt.warmupMs + 1000);
    for (String v : variants) {
      measure(v, ops.get(v), 8, 2 * b.opt.warmupMs + 1000, 0);
      if (v.equals(TXMSG)) {
        drain();
      }
    }
    for (int round = 1; round <= b.opt.rounds; round++) {
      for (int c : concurrency) {
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
            drains.add(drain());
          }
        }
      }
    }
    raw.close();
    brokerOnly.close();

    Report rep = b.report;
    rep.h2("1. Producer: throughput and latency for one business row insert");
    rep.p(
        "Closed loop: each of *c* threads runs the variant back to back for "
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
            + " diagnostic variant that separates the message's cost from the framework's.");
    for (int c : concurrency) {
      rep.h3("Concurrency " + c);
      rep.table("variant", "ops/s", "p50 ms", "p99 ms", "× (b)", "× min(d)");
      double base = med(results, RAW, c, Load.Result::perSecond);
      double limit =
          Math.min(
              med(results, BROKER, c, Load.Result::perSecond),
              med(results, DB, c, Load.Result::perSecond));
      for (String v : List.of(TXMSG, PROXY_ACK, RAW, RAW_ENVELOPE, SPRING, BROKER, DB)) {
        double tp = med(results, v, c, Load.Result::perSecond);
        rep.row(
            v,
            Report.num(tp),
            Report.ms(med(results, v, c, Load.Result::p50Ms)),
            Report.ms(med(results, v, c, Load.Result::p99Ms)),
            Report.ratio(tp / base),
            Report.ratio(tp / limit));
      }
      rep.end();
      if (c == 8) {
        double tx = med(results, TXMSG, 8, Load.Result::perSecond);
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
        double sp = med(results, SPRING, 8, Load.Result::perSecond);
        rep.target(
            "producer c=8: txmsg / rocketmq-spring (c)",
            tx / sp,
            1.0,
            Report.num(tx) + " vs " + Report.num(sp) + " ops/s");
      }
    }
    rep.p(
        "After each txmsg point the harness waits until the delivery-confirmation consumer has"
            + " marked every journal row SENT, so its backlog does not load the next variant;"
            + " median wait "
            + Report.num(Stats.median(drains))
            + " s.");
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

  /** Waits until no journal row is PENDING (the confirmer caught up); returns the seconds. */
  private double drain() throws Exception {
    long t0 = System.nanoTime();
    long until = t0 + 60_000_000_000L;
    long nextReport = t0 + 5_000_000_000L;
    long left;
    while ((left = Sql.count(b.ds, "SELECT COUNT(*) FROM txmsg_journal WHERE status <> 'SENT'"))
        > 0) {
      long now = System.nanoTime();
      if (now > until) {
        progress("  ! %d journal rows still not SENT after 60 s", left);
        break;
      }
      if (now > nextReport) {
        progress("  waiting for delivery confirmation: %d rows not SENT yet", left);
        nextReport = now + 5_000_000_000L;
      }
      Thread.sleep(50);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  private static double med(
      Map<String, Map<Integer, List<Load.Result>>> r,
      String v,
      int c,
      java.util.function.ToDoubleFunction<Load.Result> f) {
    List<Double> vals = new ArrayList<>();
    for (Load.Result x : r.getOrDefault(v, Map.of()).getOrDefault(c, List.of())) {
      vals.add(f.applyAsDouble(x));
    }
    return Stats.median(vals);
  }

  private void dbAlone(String id) throws Exception {
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      BenchMain.insertPayment(c, id);
      c.commit();
    }
  }

  private Message rawMessage(String topic, String id) {
    return b.provider
        .newMessageBuilder()
        .setTopic(topic)
        .setKeys(id)
        .addProperty(Envelope.EVENT_ID, id)
        .setBody(BenchMain.PAYLOAD)
        .build();
  }

  private void brokerAlone(Producer p, String id) throws Exception {
    Transaction tx = p.beginTransaction();
    p.send(rawMessage(b.brokerTopic, id), tx);
    tx.commit();
  }

  private void rawTx(Producer p, String id, boolean envelope) throws Exception {
    Transaction tx = p.beginTransaction();
    p.send(envelope ? envelopeMessage(b.rawTopic, id, true) : rawMessage(b.rawTopic, id), tx);
    try (Connection c = b.ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        BenchMain.insertPayment(c, id);
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO raw_journal (event_id, topic, payload, status, created_at)"
                    + " VALUES (?, ?, ?, 'COMMITTED', ?)")) {
          ps.setString(1, id);
          ps.setString(2, b.rawTopic);
          ps.setString(3, new String(BenchMain.PAYLOAD, StandardCharsets.UTF_8));
          ps.setTimestamp(4, new java.sql.Timestamp(System.currentTimeMillis()));
          ps.executeUpdate();
        }
        c.commit();
      } catch (Exception e) {
        c.rollback();
        tx.rollback();
        throw e;
      }
    }
    tx.commit();
  }

  static TxMessage message(String topic, String id) {
    return TxMessage.builder()
        .eventId(id)
        .topic(topic)
        .eventType("PaymentSucceeded")
        .aggregate("Payment", id, 1)
        .businessKey("order-" + id)
        .payload(BenchMain.PAYLOAD)
        .build();
  }

  // ---------------------------------------------------------------- 2. consumer

  /** The payload of the consumer benchmarks. */
  public record Paid(String id, int amount, String currency, String account) {}

  static final String C_RAW = "raw PushConsumer, insert in own tx";
  static final String C_DEDUP = "txmsg handler, dedup";
  static final String C_GUARD = "txmsg handler, dedup + version guard";

  void consumer() throws Exception {
    int n = b.opt.consumeMessages;
    progress("== 2. consumer: preloading %d envelopes into %s", n, b.consumeTopic);
    Producer pre =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig)
            .setTopics(b.consumeTopic)
            .build();
    AtomicLong next = new AtomicLong();
    long t0 = System.nanoTime();
    parallel(
        8,
        () -> {
          long i;
          while ((i = next.incrementAndGet()) <= n) {
            String id = "c-" + b.run + "-" + i;
            pre.send(envelopeMessage(b.consumeTopic, id));
          }
        });
    pre.close();
    progress("preloaded %d in %.1f s", n, (System.nanoTime() - t0) / 1e9);
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    List<String> variants = List.of(C_RAW, C_DEDUP, C_GUARD);
    List<Future> closing = new ArrayList<>();
    for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up (JIT)
      List<String> order = new ArrayList<>(variants);
      Collections.rotate(order, round);
      for (String v : order) {
        String group =
            "bench-"
                + (v.equals(C_RAW) ? "raw" : v.equals(C_DEDUP) ? "dedup" : "guard")
                + "-"
                + round
                + "-"
                + b.run;
        b.mq.createConsumerGroup(group, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
        double[] r = consumeAll(v, group, n, closing);
        if (round > 0) {
          results.computeIfAbsent(v, k -> new ArrayList<>()).add(r);
        }
        progress(
            "round %d %-38s %8.0f msg/s (%d of %d in %.2f s)%s",
            round, v, r[0], (long) r[2], n, r[1], round == 0 ? " (warm-up)" : "");
      }
    }
    for (Future f : closing) {
      f.await();
    }
    Report rep = b.report;
    rep.h2("2. Consumer throughput");
    rep.p(
        n
            + " envelopes (as the txmsg producer writes them) are preloaded into a NORMAL topic;"
            + " each round a fresh consumer group of each variant consumes all of them from the"
            + " start (8 consumption threads each). Throughput = messages / (last applied − first"
            + " received). The raw consumer decodes the JSON payload with Jackson and inserts the"
            + " credit row in its own JDBC transaction (no dedup); the txmsg handler inserts the"
            + " same row inside the framework's transaction (consume-log claim, optional version"
            + " guard: one aggregate per event, so the guard also creates one version row per event"
            + " in its own short transaction). Medians over "
            + b.opt.rounds
            + " rounds after one warm-up round.");
    rep.table("variant", "msg/s", "× raw");
    double base = Stats.median(col(results.get(C_RAW), 0));
    for (String v : variants) {
      double tp = Stats.median(col(results.get(v), 0));
      rep.row(v, Report.num(tp), Report.ratio(tp / base));
    }
    rep.end();
    double dedup = Stats.median(col(results.get(C_DEDUP), 0));
    double guard = Stats.median(col(results.get(C_GUARD), 0));
    rep.target(
        "consumer: dedup / raw",
        dedup / base,
        0.85,
        Report.num(dedup) + " vs " + Report.num(base) + " msg/s");
    rep.target(
        "consumer: dedup + version guard / raw",
        guard / base,
        0.85,
        Report.num(guard) + " vs " + Report.num(base) + " msg/s");
  }

  private static List<Double> col(List<double[]> rows, int i) {
    List<Double> out = new ArrayList<>();
    if (rows != null) {
      for (double[] r : rows) {
        out.add(r[i]);
      }
    }
    return out;
  }

  private Message envelopeMessage(String topic, String id) {
    return envelopeMessage(topic, id, false);
  }

  /** The envelope as txmsg sends it (with businessKey: keys eventId and business key). */
  private Message envelopeMessage(String topic, String id, boolean businessKeyAsKey) {
    Map<String, String> p = new HashMap<>();
    p.put(Envelope.EVENT_ID, id);
    p.put(Envelope.ATTEMPT_ID, UUID.randomUUID().toString());
    p.put(Envelope.STORE_ID, "bench-preload");
    p.put(Envelope.EVENT_TYPE, "PaymentSucceeded");
    p.put(Envelope.EVENT_VERSION, "1");
    p.put(Envelope.AGGREGATE_TYPE, "Payment");
    p.put(Envelope.AGGREGATE_ID, id);
    p.put(Envelope.AGGREGATE_VERSION, "1");
    p.put(Envelope.BUSINESS_KEY, "order-" + id);
    p.put(
        Envelope.PAYLOAD_HASH,
        PayloadHashes.compute(id, "PaymentSucceeded", 1, "Payment", id, 1, BenchMain.PAYLOAD));
    p.put(Envelope.ORIGIN_TIME, Long.toString(System.currentTimeMillis()));
    var mb =
        b.provider
            .newMessageBuilder()
            .setTopic(topic)
            .setKeys(businessKeyAsKey ? new String[] {id, "order-" + id} : new String[] {id})
            .setBody(BenchMain.PAYLOAD);
    p.forEach(mb::addProperty);
    return mb.build();
  }

  /** Handles one message per distinct event id; returns {msg/s, seconds, handled}. */
  private double[] consumeAll(String variant, String group, int n, List<Future> closing)
      throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    CountDownLatch all = new CountDownLatch(n);
    AtomicLong first = new AtomicLong();
    AtomicLong last = new AtomicLong();
    Runnable[] stop = new Runnable[1];
    java.util.function.Consumer<String> done =
        id -> {
          long now = System.nanoTime();
          first.compareAndSet(0, now);
          if (seen.add(id)) {
            last.accumulateAndGet(now, Math::max);
            all.countDown();
          }
        };
    if (variant.equals(C_RAW)) {
      ObjectMapper json = new ObjectMapper();
      PushConsumer pc =
          b.provider
              .newPushConsumerBuilder()
              .setClientConfiguration(b.clientConfig)
              .setConsumerGroup(group)
              .setSubscriptionExpressions(Map.of(b.consumeTopic, FilterExpression.SUB_ALL))
              .setConsumptionThreadCount(8)
              .setMessageListener(
                  view -> {
                    first.compareAndSet(0, System.nanoTime());
                    String id = view.getProperties().get(Envelope.EVENT_ID);
                    try {
                      byte[] body = new byte[view.getBody().remaining()];
                      view.getBody().duplicate().get(body);
                      Paid p = json.readValue(body, Paid.class);
                      try (Connection c = b.ds.getConnection()) {
                        c.setAutoCommit(false);
                        credit(c, group, id, p);
                        c.commit();
                      }
                    } catch (Exception e) {
                      return ConsumeResult.FAILURE;
                    }
                    done.accept(id);
                    return ConsumeResult.SUCCESS;
                  })
              .build();
      stop[0] = () -> quietly(pc::close);
    } else {
      boolean guard = variant.equals(C_GUARD);
      TxConsumers tc =
          TxConsumers.builder()
              .dataSource(b.ds)
              .settings(
                  new TxConsumerSettings()
                      .endpoints(b.mq.grpcEndpoint())
                      .consumptionThreads(8)
                      .group(ConsumerGroupConfig.of(group).subscribe(b.consumeTopic)))
              .handler(
                  HandlerDefinition.of(
                          group,
                          b.consumeTopic,
                          "PaymentSucceeded",
                          Paid.class,
                          (Paid event, io.txmsg.api.consumer.ConsumeContext ctx) -> {
                            first.compareAndSet(0, System.nanoTime());
                            credit(ctx.connection(), group, ctx.eventId(), event);
                          })
                      .versionGuard(guard))
              .listener(
                  (g, type, id, outcome) -> {
                    if (outcome == ConsumeOutcome.APPLIED || outcome == ConsumeOutcome.DUPLICATE) {
                      done.accept(id);
                    }
                  })
              .build();
      stop[0] = () -> quietly(tc::close);
    }
    boolean complete = all.await(180, TimeUnit.SECONDS);
    closing.add(new Future(closer, stop[0]));
    double secs = (last.get() - first.get()) / 1e9;
    long handled = n - all.getCount();
    if (!complete) {
      progress("  ! %s consumed only %d of %d", variant, handled, n);
    }
    return new double[] {handled / secs, secs, handled};
  }

  static void credit(Connection c, String group, String id, Paid p) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO credit (consumer_group, event_id, account, amount) VALUES (?,?,?,?)")) {
      ps.setString(1, group);
      ps.setString(2, id);
      ps.setString(3, p.account());
      ps.setInt(4, p.amount());
      ps.executeUpdate();
    }
  }

  // ---------------------------------------------------------------- 3. end to end + 6. memory

  void endToEnd() throws Exception {
    int n = b.opt.e2eMessages;
    progress("== 3. end to end: %d events per round at producer concurrency 8", n);
    String group = "bench-e2e-" + b.run;
    b.mq.createConsumerGroup(group, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
    E2e[] current = new E2e[1];
    TxConsumers tc =
        TxConsumers.builder()
            .dataSource(b.ds)
            .settings(
                new TxConsumerSettings()
                    .endpoints(b.mq.grpcEndpoint())
                    .consumptionThreads(8)
                    .group(ConsumerGroupConfig.of(group).subscribe(b.e2eTopic)))
            .handler(
                HandlerDefinition.of(
                        group,
                        b.e2eTopic,
                        "PaymentSucceeded",
                        Paid.class,
                        (Paid event, io.txmsg.api.consumer.ConsumeContext ctx) ->
                            credit(ctx.connection(), group, ctx.eventId(), event))
                    .versionGuard(true))
            .listener(
                (g, type, id, outcome) -> {
                  E2e e = current[0];
                  if (e != null && outcome == ConsumeOutcome.APPLIED) {
                    e.handled(id, System.nanoTime()); // after the consumer's commit
                  }
                })
            .build();
    List<double[]> tx = new ArrayList<>();
    List<double[]> sp = new ArrayList<>();
    List<Double> heap = new ArrayList<>();
    List<Double> rss = new ArrayList<>();
    List<Double> brokerRss = new ArrayList<>();
    BenchMain.recordCommits = true;
    for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up
      // txmsg
      E2e e = new E2e(n);
      current[0] = e;
      Sampler s = new Sampler(b.mq.pid());
      s.start();
      AtomicLong next = new AtomicLong();
      long start = System.nanoTime();
      parallel(
          8,
          () -> {
            while (next.incrementAndGet() <= n) {
              String id = Load.nextId("e2e");
              b.txmsg
                  .template()
                  .execute(
                      message(b.e2eTopic, id),
                      ctx -> {
                        BenchMain.insertPayment(ctx.connection(), id);
                        return null;
                      });
            }
          });
      boolean complete = e.all.await(120, TimeUnit.SECONDS);
      s.halt();
      long[] lat = e.latencies();
      double[] r = {
        e.count() / ((e.last.get() - start) / 1e9),
        Stats.percentileMillis(lat, 0.5),
        Stats.percentileMillis(lat, 0.99)
      };
      if (round > 0) {
        tx.add(r);
        heap.addAll(s.heap);
        rss.addAll(s.rss);
        brokerRss.addAll(s.other);
      }
      progress(
          "round %d txmsg           %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms%s%s",
          round, r[0], r[1], r[2], round == 0 ? " (warm-up)" : "", complete ? "" : " INCOMPLETE");
      current[0] = null;
      drain();
      // rocketmq-spring
      String[] f = b.spring.call("e2e 8 " + n, 240);
      double[] q = {
        Long.parseLong(f[0]) / Double.parseDouble(f[1]),
        Double.parseDouble(f[2]),
        Double.parseDouble(f[3]),
        Double.parseDouble(f[4]),
        Double.parseDouble(f[5]),
        Double.parseDouble(f[6]),
        Double.parseDouble(f[7])
      };
      if (round > 0) {
        sp.add(q);
      }
      progress(
          "round %d rocketmq-spring %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms%s%s",
          round,
          q[0],
          q[1],
          q[2],
          round == 0 ? " (warm-up)" : "",
          f.length > 8 ? " INCOMPLETE" : "");
    }
    BenchMain.recordCommits = false;
    BenchMain.COMMITTED_AT.clear();
    tc.close();
    Report rep = b.report;
    rep.h2("3. End to end: local commit → consumer commit");
    rep.p(
        "8 producer threads send "
            + n
            + " events per round; one consumer group (8 threads) applies each in its own"
            + " transaction. Latency = from the producer's local commit (txmsg: the"
            + " `beforeHalfMessageCommit` hook; rocketmq-spring: right after the"
            + " `TransactionTemplate` commit in `executeLocalTransaction`) to the consumer's commit"
            + " of the credit row (txmsg: the consume listener, called after the commit;"
            + " rocketmq-spring: after `TransactionTemplate` in the `@RocketMQMessageListener`)."
            + " Sustained throughput = events / (first send → last applied). txmsg runs dedup +"
            + " version guard + delivery confirmation; rocketmq-spring has none of these. Medians"
            + " over "
            + b.opt.rounds
            + " rounds after one warm-up round.");
    rep.table("variant", "events/s", "p50 ms", "p99 ms", "throughput × rocketmq-spring");
    double spTp = Stats.median(col(sp, 0));
    double txTp = Stats.median(col(tx, 0));
    rep.row(
        "txmsg (gRPC proxy, dedup, guard)",
        Report.num(txTp),
        Report.ms(Stats.median(col(tx, 1))),
        Report.ms(Stats.median(col(tx, 2))),
        Report.ratio(txTp / spTp));
    rep.row(
        "rocketmq-spring (remoting)",
        Report.num(spTp),
        Report.ms(Stats.median(col(sp, 1))),
        Report.ms(Stats.median(col(sp, 2))),
        "1.00");
    rep.end();

    rep.h2("6. Memory at steady load (producer + consumer application)");
    rep.p(
        "Sampled every 200 ms during the end-to-end rounds: heap used (MemoryMXBean) and RSS"
            + " (/proc/self/status VmRSS) of each application JVM. The txmsg figures are those of"
            + " the benchmark JVM, which also holds the harness"
            + (b.kind == io.txmsg.testkit.db.TestDatabase.H2
                ? " and the **in-memory H2 database with every row written so far** (the"
                    + " rocketmq-spring JVM holds its own, smaller, H2 database)"
                : "")
            + ". Heap settings: bench JVM "
            + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax() / 1048576
            + " MiB max, rocketmq-spring JVM -Xmx1g.");
    rep.table("JVM", "heap used median MiB", "heap used max MiB", "RSS median MiB", "RSS max MiB");
    rep.row(
        "txmsg producer + consumer (bench JVM)",
        Report.num(Stats.median(heap)),
        Report.num(max(heap)),
        Report.num(Stats.median(rss)),
        Report.num(max(rss)));
    rep.row(
        "rocketmq-spring producer + consumer",
        Report.num(Stats.median(col(sp, 3))),
        Report.num(max(col(sp, 4))),
        Report.num(Stats.median(col(sp, 5))),
        Report.num(max(col(sp, 6))));
    rep.row(
        "embedded broker (NameServer + broker + proxy)",
        "–",
        "–",
        Report.num(Stats.median(brokerRss)),
        Report.num(max(brokerRss)));
    rep.end();
  }

  static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  /** One txmsg e2e round. */
  static final class E2e {
    final CountDownLatch all;
    final AtomicLong last = new AtomicLong();
    private final long[] lat;
    private final AtomicLong n = new AtomicLong();

    E2e(int count) {
      all = new CountDownLatch(count);
      lat = new long[count];
    }

    void handled(String id, long now) {
      Long committed = BenchMain.COMMITTED_AT.remove(id);
      if (committed == null) {
        return;
      }
      int i = (int) n.getAndIncrement();
      if (i < lat.length) {
        lat[i] = now - committed;
      }
      last.accumulateAndGet(now, Math::max);
      all.countDown();
    }

    long count() {
      return Math.min(n.get(), lat.length);
    }

    long[] latencies() {
      long[] a = java.util.Arrays.copyOf(lat, (int) count());
      java.util.Arrays.sort(a);
      return a;
    }
  }

  /** Samples this JVM's heap and RSS, and another process's RSS, every 200 ms. */
  static final class Sampler extends Thread {
    final List<Double> heap = Collections.synchronizedList(new ArrayList<>());
    final List<Double> rss = Collections.synchronizedList(new ArrayList<>());
    final List<Double> other = Collections.synchronizedList(new ArrayList<>());
    private final long otherPid;
    private volatile boolean stop;

    Sampler(long otherPid) {
      this.otherPid = otherPid;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!stop) {
        heap.add(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0);
        rss.add(BenchMain.rssMb("self"));
        other.add(BenchMain.rssMb(Long.toString(otherPid)));
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void halt() throws InterruptedException {
      stop = true;
      join();
    }
  }

  // ---------------------------------------------------------------- 5. store

  void store() throws Exception {
    progress("== 5. store: bytes per event, reconciler republish, archive");
    Report rep = b.report;
    rep.h2("5. Store: bytes per event, reconciler, archive");
    // Bytes per event, on the rows the runs above wrote.
    rep.h3("Bytes per event");
    rep.p(
        "Table size (data + indexes) / rows, on the rows written by the runs above. PostgreSQL:"
            + " `pg_total_relation_size`; MariaDB: information_schema `data_length + index_length`"
            + " after ANALYZE (InnoDB pages, so small tables round up); H2 in memory has no"
            + " size function: the figure is the sum of the stored values' octet lengths, i.e."
            + " **data only, without row overhead and indexes** (a lower bound).");
    rep.table("table", "rows", "bytes", "bytes / row");
    try (Connection c = b.ds.getConnection()) {
      for (String t :
          List.of(
              "txmsg_journal",
              "txmsg_attempt",
              "txmsg_consume_log",
              "txmsg_aggregate_version",
              "raw_journal")) {
        long rows = Sql.queryLong(c, "SELECT COUNT(*) FROM " + t);
        long bytes;
        try {
          bytes = b.sql.tableBytes(c, t);
        } catch (Exception e) {
          progress("  size of %s not available: %s", t, e);
          bytes = -1;
        }
        progress(
            "  %-24s %9d rows %12d bytes %8.0f bytes/row", t, rows, bytes, (double) bytes / rows);
        rep.row(
            "`" + t + "`" + (t.equals("raw_journal") ? " (baseline b)" : ""),
            rows,
            bytes < 0 ? "–" : Report.num(bytes),
            rows == 0 || bytes < 0 ? "–" : Report.num((double) bytes / rows));
      }
    }
    rep.end();
    rep.p(
        "Per produced event txmsg keeps one journal row + one attempt row (the attempt row is"
            + " archived soon: it only has to outlive the broker's check window); per consumed event"
            + " and group one consume-log row (+ one version row per aggregate with the guard).");

    // Reconciler republish.
    int rows = b.opt.consumeMessages / 2;
    List<Double> rates = new ArrayList<>();
    Reconciler reconciler = b.txmsg.reconciler();
    for (int round = 1; round <= b.opt.rounds; round++) {
      String prefix = "rc" + round + b.run;
      Sql.update(
          b.ds,
          b.sql.journalFill(
              prefix,
              1,
              rows,
              "PENDING",
              b.txTopic,
              BenchMain.PAYLOAD,
              b.sql.daysAgo(1),
              b.sql.now()));
      long t0 = System.nanoTime();
      long done = 0;
      while (true) {
        Reconciler.Round r = reconciler.runOnce();
        done += r.republished();
        if (r.claimed() == 0) {
          break;
        }
      }
      double rate = done / ((System.nanoTime() - t0) / 1e9);
      rates.add(rate);
      progress("round %d reconciler republished %d rows at %.0f rows/s", round, done, rate);
      drain();
    }
    rep.h3("Reconciler republish");
    rep.p(
        rows
            + " due PENDING rows per round (bulk-inserted), then `Reconciler.runOnce()` until a round"
            + " claims nothing (batch "
            + new TxMessagingSettings().reconcileBatchSize()
            + ", one transactional send + commit per row, one thread). Median over "
            + b.opt.rounds
            + " rounds: **"
            + Report.num(Stats.median(rates))
            + " rows/s**.");

    // Archive.
    int arch = 20_000;
    Map<Archiver.Table, List<Double>> archRates = new LinkedHashMap<>();
    Archiver archiver = new Archiver(b.ds, b.txmsg.store());
    for (int round = 1; round <= b.opt.rounds; round++) {
      String prefix = "ar" + round + b.run;
      String old = b.sql.daysAgo(30);
      Sql.update(
          b.ds, b.sql.journalFill(prefix, 1, arch, "SENT", b.txTopic, BenchMain.PAYLOAD, old, old));
      Sql.update(b.ds, b.sql.attemptFill(prefix, 1, arch, old));
      Sql.update(b.ds, b.sql.consumeLogFill(prefix, 1, arch, old));
      Archiver.Result r =
          archiver.run(
              new Archiver.Policy(
                  Duration.ofDays(1), Duration.ofDays(8), Duration.ofDays(1), null, 1000, false),
              x -> {});
      StringBuilder line = new StringBuilder();
      for (Archiver.TableResult t : r.tables()) {
        archRates.computeIfAbsent(t.table(), k -> new ArrayList<>()).add(t.rowsPerSecond());
        line.append(
            String.format(
                java.util.Locale.ROOT,
                " %s %d rows %.0f rows/s;",
                t.table().label(),
                t.rows(),
                t.rowsPerSecond()));
      }
      progress("round %d archive:%s", round, line);
    }
    rep.h3("Archive (`io.txmsg.store.Archiver`, copy to *_archive + delete, batches of 1000)");
    rep.p(
        arch
            + " terminal rows 30 days old per table per round; median over "
            + b.opt.rounds
            + " rounds.");
    rep.table("table", "rows/s");
    archRates.forEach((t, v) -> rep.row(t.label(), Report.num(Stats.median(v))));
    rep.end();
  }

  // ---------------------------------------------------------------- 4. check-back

  void checkback() throws Exception {
    progress(
        "== 4. check-back resolver latency by journal size %s",
        java.util.Arrays.toString(b.opt.checkbackSizes));
    // H2: a file database in a temp directory. 10^7 journal + attempt rows need ~15 GB of heap in
    // memory; a file database is also what an H2 deployment reads from.
    Path h2Dir = b.kind == TestDatabase.H2 ? Files.createTempDirectory("txmsg-checkback-h2") : null;
    DatabaseFixture f = h2Dir == null ? b.kind.open() : null;
    try (var ds =
        h2Dir == null
            ? BenchMain.pool(f, b.kind, 4)
            : BenchMain.pool("jdbc:h2:file:" + h2Dir.resolve("checkback"), b.kind, 4)) {
      SchemaInstaller.installIfMissing(ds, "txmsg_");
      TxmsgStore store = TxmsgStore.detect(ds, "txmsg_");
      JournalCheckbackResolver resolver =
          new JournalCheckbackResolver(
              ds,
              store,
              new TxMessagingSettings().storeId("bench").endpoints("unused:1").topics("t"));
      long filled = 0;
      String old = b.sql.daysAgo(1);
      Map<Long, CheckbackPoint> res = new LinkedHashMap<>();
      for (long size : b.opt.checkbackSizes) {
        long t0 = System.nanoTime();
        long chunk = 1_000_000;
        while (filled < size) {
          long to = Math.min(size, filled + chunk);
          Sql.update(
              ds, b.sql.journalFill("", filled + 1, to, "SENT", "t", BenchMain.PAYLOAD, old, old));
          Sql.update(ds, b.sql.attemptFill("", filled + 1, to, old));
          filled = to;
          if (size >= 1_000_000) {
            progress(
                "  filled %,d journal + attempt rows (%.0f s)",
                filled, (System.nanoTime() - t0) / 1e9);
          }
        }
        if (b.kind != io.txmsg.testkit.db.TestDatabase.H2) {
          Sql.exec(
              ds,
              b.kind == io.txmsg.testkit.db.TestDatabase.POSTGRESQL
                  ? "ANALYZE txmsg_journal"
                  : "ANALYZE TABLE txmsg_journal");
          Sql.exec(
              ds,
              b.kind == io.txmsg.testkit.db.TestDatabase.POSTGRESQL
                  ? "ANALYZE txmsg_attempt"
                  : "ANALYZE TABLE txmsg_attempt");
        }
        double fillSecs = (System.nanoTime() - t0) / 1e9;
        List<Double> p50 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        List<Double> j50 = new ArrayList<>();
        List<Double> j99 = new ArrayList<>();
        List<Double> r50 = new ArrayList<>();
        List<Double> r99 = new ArrayList<>();
        lookups(resolver, 1, size, 2000, true); // warm-up
        for (int round = 0; round < Math.max(3, b.opt.rounds); round++) {
          long[] a = lookups(resolver, 1, size, 3000, true);
          long[] j = lookups(resolver, 1, size, 3000, false);
          // What the broker asks about: half messages younger than its check window, i.e. the
          // newest rows, whose pages the inserts left in the database's cache.
          long[] recent = lookups(resolver, Math.max(1, size - RECENT + 1), size, 3000, true);
          p50.add(Stats.percentileMillis(a, 0.5));
          p99.add(Stats.percentileMillis(a, 0.99));
          j50.add(Stats.percentileMillis(j, 0.5));
          j99.add(Stats.percentileMillis(j, 0.99));
          r50.add(Stats.percentileMillis(recent, 0.5));
          r99.add(Stats.percentileMillis(recent, 0.99));
        }
        CheckbackPoint r =
            new CheckbackPoint(
                Stats.median(p50),
                Stats.median(p99),
                Stats.median(j50),
                Stats.median(j99),
                Stats.median(r50),
                Stats.median(r99),
                fillSecs);
        res.put(size, r);
        progress(
            "  %,11d rows: attempt path p50 %.3f p99 %.3f ms | journal path p50 %.3f p99 %.3f ms"
                + " | newest %,d: p50 %.3f p99 %.3f ms (fill %.0f s)",
            size,
            r.attemptP50(),
            r.attemptP99(),
            r.journalP50(),
            r.journalP99(),
            RECENT,
            r.newestP50(),
            r.newestP99(),
            r.fillSeconds());
      }
      Report rep = b.report;
      rep.h2("4. Check-back: resolver latency by table size");
      rep.p(
          "`JournalCheckbackResolver.resolve` called directly (single thread) on a separate"
              + " database bulk-filled with N journal rows and N attempt rows (INSERT … SELECT from"
              + " a generated series). Attempt path: the attempt row exists (COMMITTED → COMMIT), the"
              + " common case. Journal path: no attempt row (archived), the journal row is read by"
              + " event id. 3000 keys per round drawn uniformly from all N rows (the worst case:"
              + " most of them cold once the table outgrows the database's cache), and 3000 from"
              + " the newest "
              + Report.count(RECENT)
              + " rows (attempt path), which is what the broker asks about: half messages younger"
              + " than its check window. Medians of "
              + Math.max(3, b.opt.rounds)
              + " rounds. The resolver logs one INFO line per call; the benchmark sets"
              + " `io.txmsg` to WARN.");
      rep.table(
          "rows",
          "attempt path p50 ms",
          "p99 ms",
          "journal path p50 ms",
          "p99 ms",
          "newest rows p50 ms",
          "p99 ms",
          "fill s");
      res.forEach(
          (size, r) ->
              rep.row(
                  Report.count(size),
                  Report.ms(r.attemptP50()),
                  Report.ms(r.attemptP99()),
                  Report.ms(r.journalP50()),
                  Report.ms(r.journalP99()),
                  Report.ms(r.newestP50()),
                  Report.ms(r.newestP99()),
                  Report.num(r.fillSeconds())));
      rep.end();
      long smallest = b.opt.checkbackSizes[0];
      long largest = b.opt.checkbackSizes[b.opt.checkbackSizes.length - 1];
      CheckbackPoint small = res.get(smallest);
      CheckbackPoint large = res.get(largest);
      String sizes = " at " + Report.count(largest) + " rows / at " + Report.count(smallest);
      rep.targetAtMost(
          "check-back p99" + sizes,
          large.attemptP99() / small.attemptP99(),
          2.0,
          Report.ms(large.attemptP99())
              + " vs "
              + Report.ms(small.attemptP99())
              + " ms, uniform keys"
              + (largest < 10_000_000 ? " (10^7 not run here, see below)" : ""));
      rep.targetAtMost(
          "check-back p99, newest rows," + sizes,
          large.newestP99() / small.newestP99(),
          2.0,
          Report.ms(large.newestP99()) + " vs " + Report.ms(small.newestP99()) + " ms");
      if (largest < 10_000_000) {
        rep.p(
            "10^7 rows were not run here (`--checkback-sizes`); the default is"
                + " 10000,1000000,10000000.");
      }
    } finally {
      if (f != null) {
        f.close();
      }
      if (h2Dir != null) {
        TempDirectories.deleteRecursively(h2Dir);
      }
    }
  }

  /** Check-backs of the newest rows: a separate column, the broker's real access pattern. */
  private static final long RECENT = 10_000;

  /** Medians, in ms, of one table size; uniform keys (attempt and journal path) and newest rows. */
  private record CheckbackPoint(
      double attemptP50,
      double attemptP99,
      double journalP50,
      double journalP99,
      double newestP50,
      double newestP99,
      double fillSeconds) {}

  /** Resolves {@code count} random keys of the rows {@code from..to}; sorted nanoseconds. */
  private long[] lookups(
      JournalCheckbackResolver r, long from, long to, int count, boolean attemptPath) {
    long[] out = new long[count];
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int i = 0; i < count; i++) {
      long x = from + rnd.nextLong(to - from + 1);
      String attempt = attemptPath ? "a" + x : "b" + x;
      CheckbackRequest q =
          new CheckbackRequest(
              "t", "PaymentSucceeded", "e" + x, attempt, "bench", 1, Instant.now(), "m", Map.of());
      long t0 = System.nanoTime();
      Resolution res = r.resolve(q);
      out[i] = System.nanoTime() - t0;
      Resolution expected = attemptPath ? Resolution.COMMIT : Resolution.ROLLBACK;
      if (res != expected) {
        throw new IllegalStateException("check-back of e" + x + " answered " + res);
      }
    }
    java.util.Arrays.sort(out);
    return out;
  }

  // ---------------------------------------------------------------- helpers

  @FunctionalInterface
  interface Work {
    void run() throws Exception;
  }

  static void parallel(int threads, Work w) throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      fs.add(
          ex.submit(
              () -> {
                w.run();
                return null;
              }));
    }
    try {
      for (var f : fs) {
        f.get();
      }
    } finally {
      ex.shutdownNow();
    }
  }

  static void quietly(Work w) {
    try {
      w.run();
    } catch (Exception e) {
      progress("close: %s", e);
    }
  }

  /** A close running in the background. */
  static final class Future {
    private final java.util.concurrent.Future<?> f;

    Future(ExecutorService ex, Runnable r) {
      f = ex.submit(r);
    }

    void await() throws Exception {
      f.get(60, TimeUnit.SECONDS);
    }
  }

  static DataSource unused() {
    return null;
  }
}
