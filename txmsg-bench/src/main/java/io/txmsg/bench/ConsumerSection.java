package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;
import static io.txmsg.bench.BenchSupport.col;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.api.Envelope;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.bench.Credits.Paid;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.store.consume.VersionRows;
import io.txmsg.transport.BrokerConnection;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.producer.Producer;

/**
 * 2. Consumer throughput: a raw push consumer against txmsg handlers with dedup (and guard), on
 * each transport.
 */
final class ConsumerSection {
  static final String C_RAW = "(b) raw PushConsumer (gRPC), insert in own tx";
  static final String C_DEDUP = "(a) txmsg handler (gRPC), dedup";
  static final String C_GUARD = "(a) txmsg handler (gRPC), dedup + version guard";

  /**
   * (a1): (a) with the version row created in a transaction of its own before the claim (the path
   * before MariaDB's in-claim insert; the same as (a) on H2 and PostgreSQL).
   */
  static final String C_GUARD_OWN_TX =
      "(a1) = (a) guard with the version row in a transaction of its own (before)";

  static final String C_LEASED = "(al) txmsg handler (gRPC, leased delivery 15 s), dedup";
  static final String C_RAW_R = "(br) raw DefaultMQPushConsumer (remoting), insert in own tx";
  static final String C_DEDUP_R = "(ar) txmsg handler (remoting), dedup";
  static final String C_GUARD_R = "(ar) txmsg handler (remoting), dedup + version guard";

  private static final List<String> ALL =
      List.of(C_RAW, C_DEDUP, C_GUARD, C_GUARD_OWN_TX, C_LEASED, C_RAW_R, C_DEDUP_R, C_GUARD_R);

  /** The group name token of each variant. */
  private static final Map<String, String> TOKEN =
      Map.of(
          C_RAW,
          "raw",
          C_DEDUP,
          "dedup",
          C_GUARD,
          "guard",
          C_LEASED,
          "leased",
          C_RAW_R,
          "raw-r",
          C_DEDUP_R,
          "dedup-r",
          C_GUARD_R,
          "guard-r",
          C_GUARD_OWN_TX,
          "guard-own-tx");

  /** The variants selected by {@code --variants} (b, a, al, br, ar). */
  private final List<String> variants = new ArrayList<>();

  private final BenchMain b;

  /** Per variant, one {msg/s, seconds, handled, errors} per measured round. */
  private final Map<String, List<double[]>> results = new LinkedHashMap<>();

  ConsumerSection(BenchMain b) {
    this.b = b;
    for (String v : ALL) {
      if (b.opt.variants.contains(ProducerSection.key(v))) {
        variants.add(v);
      }
    }
  }

  private static boolean remoting(String v) {
    return v.equals(C_RAW_R) || v.equals(C_DEDUP_R) || v.equals(C_GUARD_R);
  }

  void run() throws Exception {
    int n = b.opt.consumeMessages;
    preload(n);
    for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up (JIT)
      runRound(round, n);
    }
    writeReport(n);
  }

  /** Sends {@code n} envelopes into the consume topic, from 8 threads. */
  private void preload(int n) throws Exception {
    progress("== 2. consumer: preloading %d envelopes into %s", n, b.consumeTopic);
    Messages messages = new Messages(b.provider);
    Producer pre =
        b.provider
            .newProducerBuilder()
            .setClientConfiguration(b.clientConfig)
            .setTopics(b.consumeTopic)
            .build();
    AtomicLong next = new AtomicLong();
    long t0 = System.nanoTime();
    BenchSupport.parallel(
        8,
        () -> {
          long i;
          while ((i = next.incrementAndGet()) <= n) {
            String id = "c-" + b.run + "-" + i;
            pre.send(messages.envelope(b.consumeTopic, id));
          }
        });
    pre.close();
    progress("preloaded %d in %.1f s", n, (System.nanoTime() - t0) / 1e9);
  }

  /** Each variant once, with a fresh consumer group, in an order shuffled for this round. */
  private void runRound(int round, int n) throws Exception {
    for (String v : b.order.shuffle("consumer", round, 0, variants, ConsumerSection::shortName)) {
      String group = groupName(v, round);
      b.mq.createConsumerGroup(group, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
      double[] r = consumeAll(v, group, n);
      if (round > 0) {
        results.computeIfAbsent(v, k -> new ArrayList<>()).add(r);
      }
      progress(
          "round %d %-38s %8.0f msg/s (%d of %d in %.2f s, %d errors)%s",
          round, v, r[0], (long) r[2], n, r[1], (long) r[3], round == 0 ? " (warm-up)" : "");
    }
  }

  /** A variant's name in the report's list of orders. */
  private static String shortName(String variant) {
    return ProducerSection.key(variant) + " " + TOKEN.get(variant);
  }

  private String groupName(String variant, int round) {
    return "bench-" + TOKEN.get(variant) + "-" + round + "-" + b.run;
  }

  /**
   * Handles one message per distinct event id; returns {msg/s, seconds, handled, errors}. The
   * consumers are closed before the next variant starts: a close running in the background (as this
   * section used to do) takes CPU from the variant being measured.
   */
  private double[] consumeAll(String variant, String group, int n) throws Exception {
    Completion done = new Completion(n);
    Runnable stop;
    if (variant.equals(C_RAW)) {
      stop = startRawConsumer(group, done);
    } else if (variant.equals(C_RAW_R)) {
      var pc =
          RawRemotingConsumer.start(
              b, group, b.consumeTopic, done::accept, done.errors::incrementAndGet);
      stop = pc::shutdown;
    } else {
      // The old path of (a1) is chosen when its consumers are built (the property is read then).
      boolean ownTx = variant.equals(C_GUARD_OWN_TX);
      if (ownTx) {
        System.setProperty(VersionRows.OWN_TRANSACTION_PROPERTY, "true");
      }
      try {
        stop =
            startTxConsumer(
                group,
                remoting(variant) ? b.remotingConnection() : b.connection(),
                variant.equals(C_GUARD) || variant.equals(C_GUARD_R) || ownTx,
                variant.equals(C_LEASED),
                done);
      } finally {
        System.clearProperty(VersionRows.OWN_TRANSACTION_PROPERTY);
      }
    }
    boolean complete = done.all.await(180, TimeUnit.SECONDS);
    stop.run();
    // Both clocks run from the first to the last applied event (after the consumer's commit):
    // txmsg has no hook at receipt, and its handler runs after the claim, so starting txmsg's
    // clock in the handler and the raw one at listener entry favoured neither consistently.
    double secs = (done.last.get() - done.first.get()) / 1e9;
    long handled = n - done.all.getCount();
    if (!complete) {
      progress("  ! %s consumed only %d of %d", variant, handled, n);
    }
    return new double[] {(handled - 1) / secs, secs, handled, done.errors.get()};
  }

  /** Jackson decoding and the credit row in its own JDBC transaction, no dedup; returns stop. */
  private Runnable startRawConsumer(String group, Completion done) throws Exception {
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
                  String id = view.getProperties().get(Envelope.EVENT_ID);
                  try {
                    byte[] body = new byte[view.getBody().remaining()];
                    view.getBody().duplicate().get(body);
                    Paid p = json.readValue(body, Paid.class);
                    try (Connection c = b.consumerDs.getConnection()) {
                      c.setAutoCommit(false);
                      Credits.credit(c, group, id, p);
                      c.commit();
                    }
                  } catch (Exception e) {
                    done.errors.incrementAndGet();
                    return ConsumeResult.FAILURE;
                  }
                  done.accept(id);
                  return ConsumeResult.SUCCESS;
                })
            .build();
    return () -> BenchSupport.quietly(pc::close);
  }

  /** The credit row inside the framework's transaction; returns stop. */
  private Runnable startTxConsumer(
      String group, BrokerConnection connection, boolean guard, boolean leased, Completion done)
      throws Exception {
    TxConsumers.Builder builder =
        Credits.creditConsumers(b, connection, group, b.consumeTopic, guard);
    if (leased) {
      builder.settings(
          Credits.settings(connection, group, b.consumeTopic)
              .leasedDelivery(
                  Duration.ofSeconds(15), Duration.ofSeconds(1), Duration.ofMinutes(1)));
    }
    TxConsumers tc =
        builder
            .listener(
                (g, type, id, outcome) -> {
                  if (outcome == ConsumeOutcome.APPLIED || outcome == ConsumeOutcome.DUPLICATE) {
                    done.accept(id);
                  } else {
                    done.errors.incrementAndGet(); // RETRY, PARKED, ...: not applied this time
                  }
                })
            .build();
    return () -> BenchSupport.quietly(tc::close);
  }

  /** First and last applied event, a countdown of the distinct ids, failed attempts. */
  private static final class Completion {
    final Set<String> seen = ConcurrentHashMap.newKeySet();
    final CountDownLatch all;
    final AtomicLong first = new AtomicLong();
    final AtomicLong last = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    Completion(int n) {
      all = new CountDownLatch(n);
    }

    void accept(String id) {
      long now = System.nanoTime();
      first.compareAndSet(0, now);
      if (seen.add(id)) {
        last.accumulateAndGet(now, Math::max);
        all.countDown();
      }
    }
  }

  private void writeReport(int n) {
    Report rep = b.report;
    rep.h2("2. Consumer throughput");
    rep.p(
        n
            + " envelopes (as the txmsg producer writes them) are preloaded into a NORMAL topic;"
            + " each round a fresh consumer group of each variant consumes all of them from the"
            + " start (8 consumption threads each, no TLS on either transport), in an order"
            + " shuffled for every round (listed below the table); each variant's consumers are"
            + " closed before the next starts."
            + " Throughput = (messages − 1) / (last applied − first applied), the same two points"
            + " for every variant (after the consumer's commit). The raw consumers (gRPC:"
            + " rocketmq-client-java `PushConsumer`; remoting: rocketmq-client"
            + " `DefaultMQPushConsumer`, CLUSTERING, one message per listener call) decode the"
            + " JSON payload with Jackson and insert the credit row in their own JDBC transaction"
            + " (no dedup); the txmsg handler (the same definition on both transports, only the"
            + " connection differs) inserts the same row inside the framework's transaction"
            + " (consume-log claim, optional version guard: one aggregate per event, so the guard"
            + " also creates one version row per event: in a short transaction of its own on H2,"
            + " inside the claim transaction on MariaDB, by the claim's upsert on PostgreSQL; (a1),"
            + " when selected, creates it in a transaction of its own on MariaDB too). Ratios are"
            + " paired within each round; median (min–max) over "
            + b.opt.rounds
            + " rounds after one warm-up round. Errors: failed deliveries (raw: the listener"
            + " returned FAILURE / RECONSUME_LATER; txmsg: an outcome other than"
            + " APPLIED/DUPLICATE), all redelivered. (al) is (a) with leased delivery (a simple"
            + " consumer whose 15 s lease txmsg renews; README, \"Consumer crash recovery over"
            + " gRPC\"). rocketmq-spring has no consumer variant in"
            + " this section (its consumer runs in section 3). Every consumer, raw and txmsg,"
            + " uses "
            + b.consumerPoolDescription()
            + ".");
    rep.table("variant", "msg/s", "× raw gRPC, per round", "× raw remoting, per round", "errors");
    List<Double> base = col(results.get(C_RAW), 0);
    List<Double> baseR = col(results.get(C_RAW_R), 0);
    for (String v : variants) {
      List<Double> tp = col(results.get(v), 0);
      long errors = (long) col(results.get(v), 3).stream().mapToDouble(x -> x).sum();
      rep.row(
          v,
          Report.num(Stats.median(tp)),
          base.isEmpty() ? "–" : Stats.spread(Stats.ratios(tp, base)),
          baseR.isEmpty() ? "–" : Stats.spread(Stats.ratios(tp, baseR)),
          errors);
    }
    rep.end();
    List<Double> guardNew = col(results.get(C_GUARD), 0);
    List<Double> guardOld = col(results.get(C_GUARD_OWN_TX), 0);
    if (!guardNew.isEmpty() && !guardOld.isEmpty()) {
      rep.p(
          "Version row inside the claim transaction (a) against in a transaction of its own (a1),"
              + " per round: "
              + Stats.ratioSpread(guardNew, guardOld)
              + ".");
    }
    rep.p(
        "Order of the variants in each round, round 0 the warm-up (seed "
            + b.order.seed()
            + "): "
            + String.join("; ", b.order.drawn("consumer"))
            + ".");
    target(C_DEDUP, "consumer gRPC: dedup / raw gRPC", 0.85, base);
    target(C_GUARD, "consumer gRPC: dedup + version guard / raw gRPC", 0.8, base);
    target(C_LEASED, "consumer gRPC, leased delivery: dedup / raw gRPC", 0.85, base);
    target(C_DEDUP_R, "consumer remoting: dedup / raw remoting", 0.85, baseR);
    target(C_GUARD_R, "consumer remoting: dedup + version guard / raw remoting", 0.8, baseR);
  }

  private void target(String v, String goal, double threshold, List<Double> base) {
    List<Double> tp = col(results.get(v), 0);
    b.report.target(
        goal,
        Stats.ratios(tp, base),
        threshold,
        Report.num(Stats.median(tp)) + " vs " + Report.num(Stats.median(base)) + " msg/s");
  }
}
