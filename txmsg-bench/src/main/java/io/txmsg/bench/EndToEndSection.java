package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;
import static io.txmsg.bench.BenchSupport.col;
import static io.txmsg.bench.BenchSupport.max;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.api.Envelope;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.bench.Credits.Paid;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.transport.BrokerConnection;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;

/**
 * 3. End to end (local commit → consumer commit): txmsg on each transport against the hand-written
 * raw client on the same transport (the baseline of the target) and rocketmq-spring (remoting); and
 * 6. memory of each application JVM, sampled during the same rounds.
 */
final class EndToEndSection {
  private static final String TXMSG = "(a) txmsg (gRPC, dedup, guard)";
  private static final String RAW = "(b) raw client + journal (gRPC), raw consumer";
  private static final String SPRING = "(c) rocketmq-spring (remoting)";
  private static final String TXMSG_R = "(ar) txmsg (remoting, dedup, guard)";
  private static final String RAW_R = "(br) raw client + journal (remoting), raw consumer";

  private final BenchMain b;

  /** The round the consumers' listeners report to; null between rounds. */
  private volatile E2eRound current;

  /** Per measured round {events/s, p50 ms, p99 ms, errors}; spring adds heap and RSS figures. */
  private final List<double[]> tx = new ArrayList<>();

  private final List<double[]> raw = new ArrayList<>();
  private final List<double[]> sp = new ArrayList<>();
  private final List<double[]> txR = new ArrayList<>();
  private final List<double[]> rawR = new ArrayList<>();

  private final List<Double> heap = new ArrayList<>();
  private final List<Double> rss = new ArrayList<>();
  private final List<Double> brokerRss = new ArrayList<>();

  /**
   * Counters at the start of the measured rounds: txmsg check-backs, republished, raw, spring,
   * txmsg remoting check-backs, republished, raw remoting.
   */
  private long[] before;

  EndToEndSection(BenchMain b) {
    this.b = b;
  }

  void run() throws Exception {
    int n = b.opt.e2eMessages;
    progress("== 3. end to end: %d events per round at producer concurrency 8", n);
    String group = "bench-e2e-" + b.run;
    String rawGroup = "bench-raw-e2e-" + b.run;
    String groupR = "bench-e2e-r-" + b.run;
    String rawGroupR = "bench-raw-e2e-r-" + b.run;
    for (String g : List.of(group, rawGroup, groupR, rawGroupR)) {
      b.mq.createConsumerGroup(g, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
    }
    List<String> variants = new ArrayList<>(List.of(TXMSG, RAW, SPRING, TXMSG_R, RAW_R));
    variants.removeIf(v -> !b.opt.variants.contains(ProducerSection.key(v)));
    progress("variants: %s", variants);
    TxConsumers tc = startConsumer(group, b.connection(), b.e2eTopic);
    PushConsumer rc = startRawConsumer(rawGroup);
    TxConsumers tcR = startConsumer(groupR, b.remotingConnection(), b.e2eRemotingTopic);
    var rcR =
        RawRemotingConsumer.start(
            b,
            rawGroupR,
            b.rawRemotingE2eTopic,
            id -> {
              E2eRound e = current;
              if (e != null) {
                e.handled(id, System.nanoTime()); // after the consumer's commit, as for txmsg
              }
            },
            () -> {});
    BenchMain.recordCommits = true;
    long[] after;
    try (RawClient rawClient = new RawClient(b, b.rawE2eTopic);
        RawRemotingClient rawClientR =
            new RawRemotingClient(b, b.rawRemotingE2eTopic, "bench-raw-e2e-rp-" + b.run, true)) {
      for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up
        if (round == 1) {
          before = counters(rawClient, rawClientR);
        }
        List<String> order = new ArrayList<>(variants);
        Collections.rotate(order, round); // so no variant always runs first (warmer caches)
        for (String v : order) {
          runVariant(v, round, n, rawClient, rawClientR);
        }
      }
      after = counters(rawClient, rawClientR);
    }
    BenchMain.recordCommits = false;
    BenchMain.COMMITTED_AT.clear();
    tc.close();
    rc.close();
    tcR.close();
    rcR.shutdown();
    writeEndToEndReport(n, after);
    writeMemoryReport();
  }

  private long[] counters(RawClient rawClient, RawRemotingClient rawClientR) throws Exception {
    return new long[] {
      BenchMain.counted(b.txMetrics, "txmsg.checkback"),
      BenchMain.counted(b.txMetrics, "txmsg.reconcile.republished"),
      rawClient.checkbacks.get(),
      Long.parseLong(b.spring.call("checkbacks", 30)[0]),
      BenchMain.counted(b.txRemotingMetrics, "txmsg.checkback"),
      BenchMain.counted(b.txRemotingMetrics, "txmsg.reconcile.republished"),
      rawClientR.checkbacks.get()
    };
  }

  private void runVariant(
      String v, int round, int n, RawClient rawClient, RawRemotingClient rawClientR)
      throws Exception {
    switch (v) {
      case TXMSG -> txmsgRound(round, n);
      case RAW -> rawRound(round, n, rawClient);
      case TXMSG_R -> txmsgRemotingRound(round, n);
      case RAW_R -> rawRemotingRound(round, n, rawClientR);
      default -> springRound(round, n);
    }
  }

  /** Dedup + version guard; reports each applied event to the current round. */
  private TxConsumers startConsumer(String group, BrokerConnection connection, String topic)
      throws Exception {
    return Credits.creditConsumers(b, connection, group, topic, true)
        .listener(
            (g, type, id, outcome) -> {
              E2eRound e = current;
              if (e != null && outcome == ConsumeOutcome.APPLIED) {
                e.handled(id, System.nanoTime()); // after the consumer's commit
              }
            })
        .build();
  }

  /** The raw consumer of the consumer section: Jackson, credit row in its own transaction. */
  private PushConsumer startRawConsumer(String group) throws Exception {
    ObjectMapper json = new ObjectMapper();
    return b.provider
        .newPushConsumerBuilder()
        .setClientConfiguration(b.clientConfig)
        .setConsumerGroup(group)
        .setSubscriptionExpressions(Map.of(b.rawE2eTopic, FilterExpression.SUB_ALL))
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
                return ConsumeResult.FAILURE;
              }
              E2eRound e = current;
              if (e != null) {
                e.handled(id, System.nanoTime()); // after the consumer's commit, as for txmsg
              }
              return ConsumeResult.SUCCESS;
            })
        .build();
  }

  private void txmsgRound(int round, int n) throws Exception {
    MemorySampler s = new MemorySampler(b.mq.pid());
    s.start();
    double[] r =
        measuredRound(
            TXMSG,
            round,
            n,
            id ->
                b.txmsg
                    .template()
                    .execute(
                        Messages.txMessage(b.e2eTopic, id),
                        ctx -> {
                          BenchMain.insertPayment(ctx.connection(), id);
                          return null;
                        }));
    s.halt();
    if (round > 0) {
      tx.add(r);
      heap.addAll(s.heap);
      rss.addAll(s.rss);
      brokerRss.addAll(s.other);
    }
    BenchSupport.drain(b.ds);
  }

  /** (ar): the same producer code and consumer handler as {@link #txmsgRound}, over remoting. */
  private void txmsgRemotingRound(int round, int n) throws Exception {
    double[] r =
        measuredRound(
            TXMSG_R,
            round,
            n,
            id ->
                b.txmsgRemoting
                    .template()
                    .execute(
                        Messages.txMessage(b.e2eRemotingTopic, id),
                        ctx -> {
                          BenchMain.insertPayment(ctx.connection(), id);
                          return null;
                        }));
    if (round > 0) {
      txR.add(r);
    }
    BenchSupport.drain(b.ds, BenchMain.REMOTING_PREFIX);
  }

  /** (br) end to end: the commit time is taken in executeLocalTransaction after the commit. */
  private void rawRemotingRound(int round, int n, RawRemotingClient rawClientR) throws Exception {
    double[] r =
        measuredRound(
            RAW_R,
            round,
            n,
            id -> rawClientR.send(id, () -> BenchMain.COMMITTED_AT.put(id, System.nanoTime())));
    if (round > 0) {
      rawR.add(r);
    }
  }

  /** (b) end to end: the commit time is taken after the local commit, before the half commit. */
  private void rawRound(int round, int n, RawClient rawClient) throws Exception {
    double[] r =
        measuredRound(
            RAW,
            round,
            n,
            id ->
                rawClient.send(id, false, () -> BenchMain.COMMITTED_AT.put(id, System.nanoTime())));
    if (round > 0) {
      raw.add(r);
    }
  }

  /**
   * Sends {@code n} events from 8 threads and waits until the consumer applied them; returns
   * {events/s, p50 ms, p99 ms, send errors}.
   */
  private double[] measuredRound(String v, int round, int n, Load.Op send) throws Exception {
    E2eRound e = new E2eRound(n);
    current = e;
    AtomicLong next = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicReference<Exception> firstError = new AtomicReference<>();
    long start = System.nanoTime();
    BenchSupport.parallel(
        8,
        () -> {
          while (next.incrementAndGet() <= n) {
            try {
              send.run(Load.nextId("e2e"));
            } catch (Exception ex) {
              errors.incrementAndGet();
              firstError.compareAndSet(null, ex);
              e.all.countDown(); // never applied: do not wait for it
            }
          }
        });
    boolean complete = e.all.await(120, TimeUnit.SECONDS);
    current = null;
    long[] lat = e.latencies();
    double[] r = {
      e.count() / ((e.last.get() - start) / 1e9),
      Stats.percentileMillis(lat, 0.5),
      Stats.percentileMillis(lat, 0.99),
      errors.get()
    };
    progress(
        "round %d %-42s %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms%s%s%s",
        round,
        v,
        r[0],
        r[1],
        r[2],
        errors.get() > 0 ? " errors " + errors.get() : "",
        round == 0 ? " (warm-up)" : "",
        complete ? "" : " INCOMPLETE");
    if (firstError.get() != null) {
      progress("  first send error: %s", firstError.get());
    }
    return r;
  }

  private void springRound(int round, int n) throws Exception {
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
        "round %d %-42s %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms%s%s",
        round,
        SPRING,
        q[0],
        q[1],
        q[2],
        round == 0 ? " (warm-up)" : "",
        f.length > 8 ? " INCOMPLETE" : "");
  }

  private void writeEndToEndReport(int n, long[] after) {
    Report rep = b.report;
    rep.h2("3. End to end: local commit → consumer commit");
    rep.p(
        "8 producer threads send "
            + n
            + " events per round; one consumer group (8 threads) applies each in its own"
            + " transaction. Latency = from the producer's local commit (txmsg: the"
            + " `beforeHalfMessageCommit` hook; raw gRPC: after the JDBC commit, before the half"
            + " commit; raw remoting: at the end of `executeLocalTransaction`, after the JDBC"
            + " commit, before the end-transaction; rocketmq-spring: right after the"
            + " `TransactionTemplate` commit in `executeLocalTransaction`) to the consumer's"
            + " commit of the credit row (txmsg: the consume listener, called after the commit;"
            + " raw: after the commit in the push consumer's listener; rocketmq-spring: after"
            + " `TransactionTemplate` in the `@RocketMQMessageListener`). Sustained throughput ="
            + " events / (first send → last applied). txmsg (the same producer code and handler"
            + " on both transports) runs dedup + version guard + delivery confirmation +"
            + " reconciler; the raw clients (baselines (b)/(br) of section 1 and the raw"
            + " consumers of section 2 on the same transport) and rocketmq-spring have none of"
            + " these. No variant uses TLS. The variants run in an order rotated every round;"
            + " ratios are paired within each round, median (min–max) over "
            + b.opt.rounds
            + " rounds after one warm-up round; \"raw, same transport\" is (b) for gRPC rows and"
            + " (br) for remoting rows.");
    rep.table(
        "variant",
        "events/s",
        "p50 ms",
        "p99 ms",
        "events/s × raw, same transport",
        "p99 × raw, same transport",
        "events/s × (c) spring",
        "p99 × (c) spring",
        "errors");
    row(rep, TXMSG, tx, raw, true);
    row(rep, RAW, raw, raw, true);
    row(rep, TXMSG_R, txR, rawR, true);
    row(rep, RAW_R, rawR, rawR, true);
    row(rep, SPRING, sp, rawR, false);
    rep.end();
    rep.p(
        "During the measured rounds: txmsg (gRPC) answered "
            + (after[0] - before[0])
            + " check-backs and its reconciler republished "
            + (after[1] - before[1])
            + " rows; txmsg (remoting) answered "
            + (after[4] - before[4])
            + " check-backs and republished "
            + (after[5] - before[5])
            + " rows; the raw gRPC client answered "
            + (after[2] - before[2])
            + " check-backs, the raw remoting client "
            + (after[6] - before[6])
            + "; rocketmq-spring "
            + (after[3] - before[3])
            + ".");
    List<Double> rawP99 = col(raw, 2);
    List<Double> txP99 = col(tx, 2);
    b.report.targetAtMost(
        "end to end p99 gRPC: txmsg / raw client on the same transport",
        Stats.ratios(txP99, rawP99),
        2.0,
        Report.ms(Stats.median(txP99)) + " vs " + Report.ms(Stats.median(rawP99)) + " ms");
    List<Double> rawP99R = col(rawR, 2);
    List<Double> txP99R = col(txR, 2);
    b.report.targetAtMost(
        "end to end p99 remoting: txmsg / raw client on the same transport",
        Stats.ratios(txP99R, rawP99R),
        2.0,
        Report.ms(Stats.median(txP99R)) + " vs " + Report.ms(Stats.median(rawP99R)) + " ms");
  }

  private void row(
      Report rep, String name, List<double[]> rows, List<double[]> base, boolean hasErrors) {
    if (rows.isEmpty()) {
      return; // not selected in this run
    }
    rep.row(
        name,
        Report.num(Stats.median(col(rows, 0))),
        Report.ms(Stats.median(col(rows, 1))),
        Report.ms(Stats.median(col(rows, 2))),
        ratio(col(rows, 0), col(base, 0)),
        ratio(col(rows, 2), col(base, 2)),
        ratio(col(rows, 0), col(sp, 0)),
        ratio(col(rows, 2), col(sp, 2)),
        hasErrors ? (long) col(rows, 3).stream().mapToDouble(x -> x).sum() : "–");
  }

  private static String ratio(List<Double> v, List<Double> base) {
    return base.isEmpty() ? "–" : Stats.spread(Stats.ratios(v, base));
  }

  private void writeMemoryReport() {
    Report rep = b.report;
    rep.h2("6. Memory at steady load (producer + consumer application)");
    rep.p(
        "Sampled every 200 ms during the txmsg end-to-end rounds: heap used (MemoryMXBean) and RSS"
            + " (/proc/self/status VmRSS) of each application JVM. The txmsg figures are those of"
            + " the benchmark JVM, which also holds the harness and the raw-client baselines"
            + (b.kind == TestDatabase.H2
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
}
