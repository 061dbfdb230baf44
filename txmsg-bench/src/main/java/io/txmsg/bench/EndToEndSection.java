package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;
import static io.txmsg.bench.BenchSupport.col;
import static io.txmsg.bench.BenchSupport.max;

import io.txmsg.api.consumer.ConsumeContext;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.bench.Credits.Paid;
import io.txmsg.consumer.ConsumerGroupConfig;
import io.txmsg.consumer.HandlerDefinition;
import io.txmsg.consumer.TxConsumerSettings;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.transport.BrokerConnection;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * 3. End to end (local commit → consumer commit), txmsg against rocketmq-spring, and 6. memory of
 * each application JVM, sampled during the same rounds.
 */
final class EndToEndSection {
  private final BenchMain b;

  /** The txmsg round the consumer's listener reports to; null between rounds. */
  private E2eRound current;

  /** txmsg, per measured round: {events/s, p50 ms, p99 ms}. */
  private final List<double[]> tx = new ArrayList<>();

  /** rocketmq-spring, per measured round: events/s, p50, p99, then its heap and RSS figures. */
  private final List<double[]> sp = new ArrayList<>();

  private final List<Double> heap = new ArrayList<>();
  private final List<Double> rss = new ArrayList<>();
  private final List<Double> brokerRss = new ArrayList<>();

  EndToEndSection(BenchMain b) {
    this.b = b;
  }

  void run() throws Exception {
    int n = b.opt.e2eMessages;
    progress("== 3. end to end: %d events per round at producer concurrency 8", n);
    String group = "bench-e2e-" + b.run;
    b.mq.createConsumerGroup(group, 16, Duration.ofSeconds(1), Duration.ofSeconds(5));
    TxConsumers tc = startConsumer(group);
    BenchMain.recordCommits = true;
    for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up
      txmsgRound(round, n);
      springRound(round, n);
    }
    BenchMain.recordCommits = false;
    BenchMain.COMMITTED_AT.clear();
    tc.close();
    writeEndToEndReport(n);
    writeMemoryReport();
  }

  /** Dedup + version guard; reports each applied event to the current round. */
  private TxConsumers startConsumer(String group) throws Exception {
    return TxConsumers.builder()
        .dataSource(b.ds)
        .settings(
            new TxConsumerSettings()
                .connection(BrokerConnection.endpoints(b.mq.grpcEndpoint()))
                .consumptionThreads(8)
                .group(ConsumerGroupConfig.of(group).subscribe(b.e2eTopic)))
        .handler(
            HandlerDefinition.of(
                    group,
                    b.e2eTopic,
                    "PaymentSucceeded",
                    Paid.class,
                    (Paid event, ConsumeContext ctx) ->
                        Credits.credit(ctx.connection(), group, ctx.eventId(), event))
                .versionGuard(true))
        .listener(
            (g, type, id, outcome) -> {
              E2eRound e = current;
              if (e != null && outcome == ConsumeOutcome.APPLIED) {
                e.handled(id, System.nanoTime()); // after the consumer's commit
              }
            })
        .build();
  }

  private void txmsgRound(int round, int n) throws Exception {
    E2eRound e = new E2eRound(n);
    current = e;
    MemorySampler s = new MemorySampler(b.mq.pid());
    s.start();
    AtomicLong next = new AtomicLong();
    long start = System.nanoTime();
    produce(n, next);
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
    current = null;
    BenchSupport.drain(b.ds);
  }

  /** Sends {@code n} txmsg events from 8 threads, counting them in {@code next}. */
  private void produce(int n, AtomicLong next) throws Exception {
    BenchSupport.parallel(
        8,
        () -> {
          while (next.incrementAndGet() <= n) {
            String id = Load.nextId("e2e");
            b.txmsg
                .template()
                .execute(
                    Messages.txMessage(b.e2eTopic, id),
                    ctx -> {
                      BenchMain.insertPayment(ctx.connection(), id);
                      return null;
                    });
          }
        });
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
        "round %d rocketmq-spring %7.0f ev/s  commit→applied p50 %6.1f ms p99 %6.1f ms%s%s",
        round, q[0], q[1], q[2], round == 0 ? " (warm-up)" : "", f.length > 8 ? " INCOMPLETE" : "");
  }

  private void writeEndToEndReport(int n) {
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
  }

  private void writeMemoryReport() {
    Report rep = b.report;
    rep.h2("6. Memory at steady load (producer + consumer application)");
    rep.p(
        "Sampled every 200 ms during the end-to-end rounds: heap used (MemoryMXBean) and RSS"
            + " (/proc/self/status VmRSS) of each application JVM. The txmsg figures are those of"
            + " the benchmark JVM, which also holds the harness"
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
