package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;
import static io.txmsg.bench.BenchSupport.col;
import static io.txmsg.bench.BenchSupport.max;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.txmsg.api.Envelope;
import io.txmsg.api.MeterNames;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.bench.Credits.Paid;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.transport.BrokerConnection;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;

/**
 * 3. End to end (local commit → consumer commit) at a fixed offered rate (an open loop, {@link
 * OpenLoop}): txmsg on each transport against the hand-written raw client on the same transport
 * (the baseline of the target) and rocketmq-spring (remoting); and 6. memory of each application
 * JVM, sampled during the same rounds.
 */
final class EndToEndSection {
  private static final String TXMSG = "(a) txmsg (gRPC, dedup, guard)";
  private static final String RAW = "(b) raw client + journal (gRPC), raw consumer";
  private static final String SPRING = "(c) rocketmq-spring (remoting)";
  private static final String TXMSG_R = "(ar) txmsg (remoting, dedup, guard)";
  private static final String RAW_R = "(br) raw client + journal (remoting), raw consumer";

  /** The p99 target: txmsg's end-to-end p99 at most this many times the raw client's. */
  private static final double P99_TARGET = 1.5;

  private final BenchMain b;

  /** The round the consumers' listeners report to; null between rounds. */
  private volatile E2eRound current;

  /**
   * Per measured round {delivered events/s, p50 ms, p99 ms, errors, p99 of how late the sends
   * started, ms}.
   */
  private final List<double[]> tx = new ArrayList<>();

  private final List<double[]> raw = new ArrayList<>();
  private final List<double[]> sp = new ArrayList<>();
  private final List<double[]> txR = new ArrayList<>();
  private final List<double[]> rawR = new ArrayList<>();

  /** rocketmq-spring's heap and RSS per measured round {heap median, heap max, RSS median, max}. */
  private final List<double[]> springMemory = new ArrayList<>();

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
    progress(
        "== 3. end to end: %d events per round offered at %s events/s (open loop)",
        n, Report.num(b.opt.e2eRate));
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
        for (String v : b.order.shuffle("e2e", round, 0, variants, v -> ProducerSection.key(v))) {
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
      BenchMain.counted(b.txMetrics, MeterNames.CHECKBACK),
      BenchMain.counted(b.txMetrics, MeterNames.RECONCILE_REPUBLISHED),
      rawClient.checkbacks.get(),
      Long.parseLong(b.spring.call("checkbacks", 30)[0]),
      BenchMain.counted(b.txRemotingMetrics, MeterNames.CHECKBACK),
      BenchMain.counted(b.txRemotingMetrics, MeterNames.RECONCILE_REPUBLISHED),
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
   * Starts {@code n} sends at the offered rate and waits until the consumer applied them; returns
   * {delivered events/s, p50 ms, p99 ms, send errors, p99 of how late the sends started, ms}.
   */
  private double[] measuredRound(String v, int round, int n, Load.Op send) throws Exception {
    E2eRound e = new E2eRound(n);
    current = e;
    long start = System.nanoTime();
    // A failed send is never applied: do not wait for it.
    OpenLoop.Result sent = OpenLoop.run(n, b.opt.e2eRate, "e2e", send, e.all::countDown);
    boolean complete = e.all.await(120, TimeUnit.SECONDS);
    current = null;
    long[] lat = e.latencies();
    double[] r = {
      e.count() / ((e.last.get() - start) / 1e9),
      Stats.percentileMillis(lat, 0.5),
      Stats.percentileMillis(lat, 0.99),
      sent.errors(),
      sent.lateP99Ms()
    };
    progress(
        "round %d %-42s %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms, sends late p99"
            + " %.1f ms%s%s%s",
        round,
        v,
        r[0],
        r[1],
        r[2],
        r[4],
        sent.errors() > 0 ? " errors " + sent.errors() : "",
        round == 0 ? " (warm-up)" : "",
        complete ? "" : " INCOMPLETE");
    if (sent.firstError() != null) {
      progress("  first send error: %s", sent.firstError());
    }
    return r;
  }

  private void springRound(int round, int n) throws Exception {
    String[] f = b.spring.call("e2e " + b.opt.e2eRate + " " + n, 600);
    double[] q = {
      Long.parseLong(f[0]) / Double.parseDouble(f[1]),
      Double.parseDouble(f[2]),
      Double.parseDouble(f[3]),
      Double.parseDouble(f[9]),
      Double.parseDouble(f[8])
    };
    if (round > 0) {
      sp.add(q);
      springMemory.add(
          new double[] {
            Double.parseDouble(f[4]),
            Double.parseDouble(f[5]),
            Double.parseDouble(f[6]),
            Double.parseDouble(f[7])
          });
    }
    progress(
        "round %d %-42s %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms, sends late p99"
            + " %.1f ms%s%s",
        round,
        SPRING,
        q[0],
        q[1],
        q[2],
        q[4],
        round == 0 ? " (warm-up)" : "",
        "complete".equals(f[10]) ? "" : " INCOMPLETE");
  }

  private void writeEndToEndReport(int n, long[] after) {
    Report rep = b.report;
    String rate = Report.num(b.opt.e2eRate);
    rep.h2("3. End to end at a fixed offered rate: local commit → consumer commit");
    rep.p(
        "An open loop: "
            + n
            + " events per round are offered at a fixed rate of **"
            + rate
            + " events/s**, event i started at i / "
            + rate
            + " s whatever the earlier ones are doing (on a pool of "
            + OpenLoop.SENDERS
            + " sender threads; rocketmq-spring's child JVM runs the same loop), so each variant"
            + " carries the same load and the latency is that of the path, not of the queues of a"
            + " saturated machine (a closed loop offers whatever the slowest part allows). \"sends"
            + " late p99\" says how late the sends started after their scheduled time: a variant"
            + " that cannot sustain the rate shows there and in a delivered rate below the offered"
            + " one. One consumer group (8 threads) applies each event in its own transaction."
            + " Latency = from the producer's local commit (txmsg: the `beforeHalfMessageCommit`"
            + " hook; raw gRPC: after the JDBC commit, before the half commit; raw remoting: at the"
            + " end of `executeLocalTransaction`, after the JDBC commit, before the end-transaction;"
            + " rocketmq-spring: right after the `TransactionTemplate` commit in"
            + " `executeLocalTransaction`) to the consumer's commit of the credit row (txmsg: the"
            + " consume listener, called after the commit; raw: after the commit in the push"
            + " consumer's listener; rocketmq-spring: after `TransactionTemplate` in the"
            + " `@RocketMQMessageListener`). Delivered rate = events / (first send → last"
            + " applied). txmsg (the same producer code and handler on both transports) runs dedup"
            + " + version guard + delivery confirmation + reconciler; the raw clients (baselines"
            + " (b)/(br) of section 1 and the raw consumers of section 2 on the same transport) and"
            + " rocketmq-spring have none of these. No variant uses TLS. The variants run in an"
            + " order shuffled for every round; ratios are paired within each round, median"
            + " (min–max) over "
            + b.opt.rounds
            + " rounds after one warm-up round; \"raw, same transport\" is (b) for gRPC rows and"
            + " (br) for remoting rows.");
    rep.table(
        "variant",
        "delivered events/s",
        "sends late p99 ms",
        "p50 ms",
        "p99 ms",
        "p50 × raw, same transport",
        "p99 × raw, same transport",
        "p99 × (c) spring",
        "errors");
    row(rep, TXMSG, tx, raw);
    row(rep, RAW, raw, raw);
    row(rep, TXMSG_R, txR, rawR);
    row(rep, RAW_R, rawR, rawR);
    row(rep, SPRING, sp, rawR);
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
            + ". Order of the variants in each round, round 0 the warm-up (seed "
            + b.order.seed()
            + "): "
            + String.join("; ", b.order.drawn("e2e"))
            + ".");
    target("gRPC", tx, raw, rate);
    target("remoting", txR, rawR, rate);
  }

  /** The p99 target of one transport: txmsg's p99 ÷ the raw client's, per round. */
  private void target(String via, List<double[]> txmsg, List<double[]> base, String rate) {
    String goal =
        "end to end p99 at a fixed offered rate ("
            + rate
            + " events/s), "
            + via
            + ": txmsg / raw client on the same transport";
    if (txmsg.isEmpty() || base.isEmpty()) {
      b.report.notRun(goal, "≤ " + Report.ratio(P99_TARGET));
      return;
    }
    List<Double> txP99 = col(txmsg, 2);
    List<Double> rawP99 = col(base, 2);
    b.report.targetAtMost(
        goal,
        Stats.ratios(txP99, rawP99),
        P99_TARGET,
        Report.ms(Stats.median(txP99)) + " vs " + Report.ms(Stats.median(rawP99)) + " ms");
  }

  private void row(Report rep, String name, List<double[]> rows, List<double[]> base) {
    if (rows.isEmpty()) {
      return; // not selected in this run
    }
    rep.row(
        name,
        Report.num(Stats.median(col(rows, 0))),
        Report.ms(Stats.median(col(rows, 4))),
        Report.ms(Stats.median(col(rows, 1))),
        Report.ms(Stats.median(col(rows, 2))),
        Stats.ratioSpread(col(rows, 1), col(base, 1)),
        Stats.ratioSpread(col(rows, 2), col(base, 2)),
        Stats.ratioSpread(col(rows, 2), col(sp, 2)),
        (long) col(rows, 3).stream().mapToDouble(x -> x).sum());
  }

  private void writeMemoryReport() {
    Report rep = b.report;
    rep.h2("6. Memory at steady load (producer + consumer application)");
    rep.p(
        "Sampled every 200 ms during the txmsg end-to-end rounds: heap used (MemoryMXBean) and RSS"
            + " (/proc/self/status VmRSS) of each application JVM. The txmsg figures are those of"
            + " the benchmark JVM, which also holds the harness and the raw-client baselines"
            + (b.kind == TestDatabase.H2
                ? " and the **in-memory H2 database with every row written so far**, every"
                    + " variant's and rocketmq-spring's (served over TCP from this JVM)"
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
        Report.num(Stats.median(col(springMemory, 0))),
        Report.num(max(col(springMemory, 1))),
        Report.num(Stats.median(col(springMemory, 2))),
        Report.num(max(col(springMemory, 3))));
    rep.row(
        "embedded broker (NameServer + broker + proxy)",
        "–",
        "–",
        Report.num(Stats.median(brokerRss)),
        Report.num(max(brokerRss)));
    rep.end();
  }
}
