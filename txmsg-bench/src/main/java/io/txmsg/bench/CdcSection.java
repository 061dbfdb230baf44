package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.txmsg.api.MeterNames;
import io.txmsg.testkit.db.ReplicationSlots;
import io.txmsg.testkit.db.TestDatabase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * 7. The CDC delivery mode (PostgreSQL and MariaDB only; on H2 the report says why not): producer
 * throughput of txmsg {@code deliveryMode(CDC)} next to txmsg OUTBOX and the hand-written outbox
 * ({@link OutboxVariants}) at each concurrency, the relay's drain rate of a backlog committed while
 * it was stopped against the raw client's send rate on the same transport, and commit → delivered
 * latency at a fixed offered rate (open loop) next to OUTBOX. The variants of each part run in an
 * order shuffled per round ({@link VariantOrder}); every target is judged on the median of
 * per-round figures.
 */
final class CdcSection {
  /** CDC producer throughput ÷ txmsg OUTBOX on the same transport, at the target concurrency. */
  static final double THROUGHPUT_TARGET = 1.0;

  /** Relay drain rate ÷ the raw client's send rate on the same transport. */
  static final double DRAIN_TARGET = 0.8;

  /** Commit → delivered p50 of CDC, ms. */
  static final double P50_TARGET_MS = 150;

  /** The concurrency the throughput target is judged at (the producer section's). */
  private static final int TARGET_C = 8;

  static final String TITLE = "7. CDC delivery mode: the relay reads the journal from the log";

  private final BenchMain b;
  private final List<CdcVariant> cdc = new ArrayList<>();
  private OutboxVariants outbox;

  /** Throughput: per variant and concurrency, one result per round. */
  private final Map<String, Map<Integer, List<Load.Result>>> results = new LinkedHashMap<>();

  /** Drain: per CDC variant, per round {relay rows/s, raw sends/s, start → first SENT s}. */
  private final Map<String, List<double[]>> drains = new LinkedHashMap<>();

  /** Latency: per variant (CDC and its OUTBOX), per round {p50 ms, p99 ms, paired, late p99}. */
  private final Map<String, List<double[]>> latency = new LinkedHashMap<>();

  private final Map<String, long[]> errors = new LinkedHashMap<>();
  private long[] republishedBefore;
  private long[] republishedAfter;

  CdcSection(BenchMain b) {
    this.b = b;
  }

  /** Backlog rows of each drain round. */
  int backlog() {
    return b.opt.cdcBacklog > 0 ? b.opt.cdcBacklog : b.opt.quick ? 2000 : 20_000;
  }

  /** Events per latency round. */
  int latencyEvents() {
    return b.opt.cdcMessages > 0 ? b.opt.cdcMessages : b.opt.e2eMessages;
  }

  void run() throws Exception {
    if (b.kind == TestDatabase.H2) {
      progress("== 7. CDC: not on H2 (no change log a relay could read)");
      writeNotOnH2();
      return;
    }
    progress("== 7. CDC: producer throughput, relay drain rate, commit → delivered latency");
    try {
      for (boolean grpc : new boolean[] {true, false}) {
        if (b.opt.variants.contains(grpc ? "cdc" : "cdcr")) {
          cdc.add(new CdcVariant(b, grpc));
        }
      }
      outbox = new OutboxVariants(b);
      for (CdcVariant v : cdc) {
        progress("  %s: relay RELAYING after %.1f s", v.name, v.startRelay());
      }
      republishedBefore = republished();
      throughput();
      drain();
      latency();
      republishedAfter = republished();
      write();
    } finally {
      for (CdcVariant v : cdc) {
        BenchSupport.quietly(v::close);
      }
      if (outbox != null) {
        BenchSupport.quietly(outbox::close);
      }
      if (b.kind == TestDatabase.POSTGRESQL) {
        for (CdcVariant v : cdc) {
          BenchSupport.quietly(
              () ->
                  ReplicationSlots.dropTestSlotsAndPublications(
                      b.fixture.jdbcUrl(), CdcVariant.NAME_PREFIX, v.slot));
        }
      }
    }
  }

  private long[] republished() {
    long[] r = new long[cdc.size()];
    for (int i = 0; i < cdc.size(); i++) {
      r[i] = BenchMain.counted(cdc.get(i).metrics, MeterNames.RECONCILE_REPUBLISHED);
    }
    return r;
  }

  // ---------------------------------------------------------------- throughput

  private void throughput() throws Exception {
    Map<String, Load.Op> ops = new LinkedHashMap<>();
    Map<String, CdcVariant> byName = new LinkedHashMap<>();
    for (CdcVariant v : cdc) {
      ops.put(v.name, v::execute);
      byName.put(v.name, v);
    }
    outbox.addTo(ops);
    List<String> variants = new ArrayList<>(ops.keySet());
    progress("  throughput variants: %s", variants);
    for (int round = 1; round <= b.opt.rounds; round++) {
      for (int c : b.opt.concurrency) {
        for (String v : b.order.shuffle("cdc", round, c, variants, ProducerSection::key)) {
          Load.Result r = Load.run("cdc", c, b.opt.warmupMs, b.opt.measureMs, ops.get(v));
          results
              .computeIfAbsent(v, k -> new LinkedHashMap<>())
              .computeIfAbsent(c, k -> new ArrayList<>())
              .add(r);
          errors.computeIfAbsent(v, k -> new long[1])[0] += r.errors();
          progress(
              "  round %d c=%d %s: %s ops/s, p50 %s ms, p99 %s ms, %d errors",
              round,
              c,
              v,
              Report.num(r.perSecond()),
              Report.ms(r.p50Ms()),
              Report.ms(r.p99Ms()),
              r.errors());
          CdcVariant cv = byName.get(v);
          if (cv != null) {
            BenchSupport.drain(b.ds, cv.prefix); // the relay caught up before the next variant
          } else {
            outbox.afterPoint(v, true);
          }
        }
      }
    }
  }

  private List<Load.Result> of(String v, int c) {
    return results.getOrDefault(v, Map.of()).getOrDefault(c, List.of());
  }

  // ---------------------------------------------------------------- drain

  private void drain() throws Exception {
    int n = backlog();
    for (CdcVariant v : cdc) {
      String relayKey = "relay " + v.key;
      String rawKey = "raw " + v.key;
      List<double[]> rounds = new ArrayList<>();
      drains.put(v.name, rounds);
      for (int round = 1; round <= b.opt.rounds; round++) {
        double[] r = new double[3];
        for (String part :
            b.order.shuffle("cdc-drain", round, 0, List.of(relayKey, rawKey), p -> p)) {
          if (part.equals(relayKey)) {
            double[] d = drainOnce(v, n);
            r[0] = d[0];
            r[2] = d[1];
          } else {
            r[1] = rawOnce(v, n);
          }
        }
        rounds.add(r);
        progress(
            "  round %d %s: relay drained %d rows at %s rows/s (start → first SENT %.1f s); raw"
                + " client %s sends/s",
            round, v.name, n, Report.num(r[0]), r[2], Report.num(r[1]));
      }
    }
  }

  /**
   * Stops the relay, commits {@code n} CDC rows (8 threads), starts a new relay instance and waits
   * until every row is SENT. Returns {rows/s from the first SENT row seen to the last, seconds from
   * start to the first SENT row}.
   */
  private double[] drainOnce(CdcVariant v, int n) throws Exception {
    // The relay stores its offset with each journal row it settles, not with the other WAL it
    // confirms to the slot on PostgreSQL; a relay closed long after its last row can find the
    // slot's restart position past that offset ("no longer available") and not resume. So a
    // fresh row first: closing right after it is SENT stores an offset at the end of the log.
    v.execute(Load.nextId("cp"));
    BenchSupport.drain(b.ds, v.prefix);
    v.stopRelay();
    if (b.kind == TestDatabase.POSTGRESQL) {
      // Stopped means its walsender is gone too; else the next relay's stream start finds the
      // slot still active and Debezium retries it 10 s later.
      String active =
          "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = '" + v.slot + "' AND active";
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Sql.count(b.ds, active) > 0 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
    }
    AtomicInteger left = new AtomicInteger(n);
    BenchSupport.parallel(
        8,
        () -> {
          while (left.getAndDecrement() > 0) {
            v.execute(Load.nextId("cb"));
          }
        });
    String pending = "SELECT COUNT(*) FROM " + v.prefix + "journal WHERE status <> 'SENT'";
    long backlog = Sql.count(b.ds, pending);
    long t0 = System.nanoTime();
    v.startRelayAsync();
    long first = 0;
    long atFirst = 0;
    long until = t0 + TimeUnit.MINUTES.toNanos(10);
    long remaining;
    while ((remaining = Sql.count(b.ds, pending)) > 0) {
      long now = System.nanoTime();
      if (first == 0 && remaining < backlog) {
        first = now;
        atFirst = remaining;
      }
      if (now > until) {
        throw new IllegalStateException(
            v.name + ": " + remaining + " of " + backlog + " rows not SENT after 10 minutes");
      }
      if (first == 0 && now - t0 > TimeUnit.SECONDS.toNanos(120)) {
        throw new IllegalStateException(
            v.name
                + ": the restarted relay sent none of "
                + backlog
                + " rows in 120 s (state "
                + v.relayState()
                + "; its log says why, e.g. it could not resume from its stored offset)");
      }
      Thread.sleep(10);
    }
    long end = System.nanoTime();
    if (first == 0) { // all of them SENT between two polls
      return new double[] {Double.NaN, (end - t0) / 1e9};
    }
    return new double[] {atFirst / ((end - first) / 1e9), (first - t0) / 1e9};
  }

  /** {@code n} plain sends of the raw client, back to back on one thread: sends/s. */
  private double rawOnce(CdcVariant v, int n) throws Exception {
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      v.rawSend(Load.nextId("cr"));
    }
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  // ---------------------------------------------------------------- latency

  private void latency() throws Exception {
    int n = latencyEvents();
    double rate = b.opt.e2eRate;
    for (CdcVariant v : cdc) {
      v.subscribe();
      latency.put(v.name, new ArrayList<>());
      latency.put(v.outboxName, new ArrayList<>());
    }
    for (int round = 0; round <= b.opt.rounds; round++) { // round 0 warms up
      for (CdcVariant v : cdc) {
        for (String name :
            b.order.shuffle(
                "cdc-e2e", round, 0, List.of(v.name, v.outboxName), ProducerSection::key)) {
          boolean isCdc = name.equals(v.name);
          LatencyPairs pairs = new LatencyPairs(n);
          v.pairs = pairs;
          OpenLoop.Result r =
              OpenLoop.run(n, rate, "ce", isCdc ? v::executeTimed : v::executeOutbox, () -> {});
          if (!pairs.all.await(60, TimeUnit.SECONDS)) {
            progress(
                "  ! %s: %d of %d events delivered after 60 s", name, pairs.latencies().length, n);
          }
          v.pairs = null;
          long[] lat = pairs.latencies();
          double[] row = {
            Stats.percentileMillis(lat, 0.50),
            Stats.percentileMillis(lat, 0.99),
            lat.length,
            r.lateP99Ms()
          };
          BenchSupport.drain(b.ds, isCdc ? v.prefix : v.outboxPrefix);
          progress(
              "  %s %d %s: p50 %s ms, p99 %s ms, %d/%d paired, %d errors",
              round == 0 ? "warm-up" : "round",
              round,
              name,
              Report.ms(row[0]),
              Report.ms(row[1]),
              lat.length,
              n,
              r.errors());
          if (round > 0) {
            latency.get(name).add(row);
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- report

  private void writeNotOnH2() {
    Report rep = b.report;
    rep.h2(TITLE);
    rep.p(
        "Not run on H2: the CDC delivery mode needs a database log the relay can read"
            + " (PostgreSQL with `wal_level=logical`, MariaDB/MySQL with a ROW binlog), and H2 has"
            + " none (a CDC producer or relay on H2 is refused at build()). See"
            + " [benchmarks-postgresql.md](benchmarks-postgresql.md) and"
            + " [benchmarks-mariadb.md](benchmarks-mariadb.md).");
    String why = "not on H2 (no change log)";
    rep.notApplicable("producer CDC, c=" + TARGET_C + ": txmsg CDC / txmsg OUTBOX", "≥ 1.00", why);
    rep.notApplicable("CDC relay drain rate / raw client send rate", "≥ 0.80", why);
    rep.notApplicable("CDC commit→delivered p50 (ms)", "≤ 150", why);
  }

  private int targetC() {
    int best = b.opt.concurrency[b.opt.concurrency.length - 1];
    for (int c : b.opt.concurrency) {
      if (c == TARGET_C) {
        return c;
      }
    }
    return best;
  }

  private void write() throws Exception {
    Report rep = b.report;
    rep.h2(TITLE);
    rep.p(description());
    for (int c : b.opt.concurrency) {
      rep.p("**Producer throughput, concurrency " + c + "**");
      rep.table(
          "variant",
          "ops/s",
          "p50 ms",
          "p99 ms",
          "errors",
          "× txmsg OUTBOX of its transport ((o)/(or)), per round",
          "× hand-written outbox of its transport ((ho)/(hor)), per round");
      for (String v : rowOrder()) {
        List<Load.Result> rs = of(v, c);
        if (rs.isEmpty()) {
          continue;
        }
        boolean grpc = !v.contains("remoting");
        long errs = 0;
        for (Load.Result r : rs) {
          errs += r.errors();
        }
        rep.row(
            v,
            Report.num(Stats.median(Load.perSecond(rs))),
            Report.ms(Stats.median(Load.latencies(rs, true))),
            Report.ms(Stats.median(Load.latencies(rs, false))),
            errs,
            Stats.ratioSpread(
                Load.perSecond(rs),
                Load.perSecond(of(grpc ? OutboxVariants.TXMSG_O : OutboxVariants.TXMSG_OR, c))),
            Stats.ratioSpread(
                Load.perSecond(rs),
                Load.perSecond(of(grpc ? OutboxVariants.HAND_O : OutboxVariants.HAND_OR, c))));
      }
      rep.end();
    }
    rep.p("**Relay drain rate: a backlog of " + Report.count(backlog()) + " CDC rows**");
    rep.table(
        "variant",
        "relay rows/s (first SENT → all SENT)",
        "raw client sends/s, same transport (1 thread, synchronous)",
        "× raw client, per round",
        "relay start → first row SENT, s");
    for (var e : drains.entrySet()) {
      List<Double> relay = BenchSupport.col(e.getValue(), 0);
      List<Double> raw = BenchSupport.col(e.getValue(), 1);
      rep.row(
          e.getKey(),
          Report.num(Stats.median(relay)),
          Report.num(Stats.median(raw)),
          Stats.spread(Stats.ratios(relay, raw)),
          Report.num(Stats.median(BenchSupport.col(e.getValue(), 2))));
    }
    rep.end();
    rep.p(
        "**Commit → delivered at "
            + Report.num(b.opt.e2eRate)
            + " events/s offered (open loop), "
            + Report.count(latencyEvents())
            + " events per round**");
    rep.table(
        "variant",
        "p50 ms",
        "p99 ms",
        "events paired (median of rounds)",
        "sends started late, p99 ms",
        "p50 × OUTBOX of its transport, per round");
    for (CdcVariant v : cdc) {
      for (String name : List.of(v.name, v.outboxName)) {
        List<double[]> rows = latency.get(name);
        rep.row(
            name,
            Report.ms(Stats.median(BenchSupport.col(rows, 0))),
            Report.ms(Stats.median(BenchSupport.col(rows, 1))),
            Report.num(Stats.median(BenchSupport.col(rows, 2))),
            Report.ms(Stats.median(BenchSupport.col(rows, 3))),
            name.equals(v.name)
                ? Stats.spread(
                    Stats.ratios(
                        BenchSupport.col(rows, 0), BenchSupport.col(latency.get(v.outboxName), 0)))
                : "–");
      }
    }
    rep.end();
    List<String> work = new ArrayList<>();
    for (int i = 0; i < cdc.size(); i++) {
      work.add(
          cdc.get(i).name
              + ": "
              + (republishedAfter[i] - republishedBefore[i])
              + " rows sent by the reconciler's fallback");
    }
    rep.p(
        "During the section: "
            + String.join("; ", work)
            + " (every other CDC row was sent by the relay). Variant orders: "
            + String.join("; ", b.order.drawn("cdc"))
            + "; drain: "
            + String.join("; ", b.order.drawn("cdc-drain"))
            + "; latency: "
            + String.join("; ", b.order.drawn("cdc-e2e"))
            + ".");
    writeTargets(rep);
  }

  /** The throughput rows: per transport, CDC, txmsg OUTBOX, hand-written outbox. */
  private List<String> rowOrder() {
    List<String> out = new ArrayList<>();
    for (CdcVariant v : cdc) {
      out.add(v.name);
      out.add(v.grpc ? OutboxVariants.TXMSG_O : OutboxVariants.TXMSG_OR);
      out.add(v.grpc ? OutboxVariants.HAND_O : OutboxVariants.HAND_OR);
    }
    return out;
  }

  private void writeTargets(Report rep) {
    int c = targetC();
    for (CdcVariant v : cdc) {
      String via = v.grpc ? "gRPC" : "remoting";
      String base = v.grpc ? OutboxVariants.TXMSG_O : OutboxVariants.TXMSG_OR;
      List<Double> t = Load.perSecond(of(v.name, c));
      List<Double> o = Load.perSecond(of(base, c));
      if (!t.isEmpty() && !o.isEmpty()) {
        rep.target(
            "producer CDC "
                + via
                + ", c="
                + c
                + ": txmsg ("
                + v.key
                + ") / txmsg OUTBOX "
                + base.substring(0, base.indexOf(')') + 1),
            Stats.ratios(t, o),
            THROUGHPUT_TARGET,
            Report.num(Stats.median(t)) + " vs " + Report.num(Stats.median(o)) + " ops/s");
      }
      List<double[]> d = drains.get(v.name);
      List<Double> relay = BenchSupport.col(d, 0);
      List<Double> raw = BenchSupport.col(d, 1);
      rep.target(
          "CDC relay drain "
              + via
              + " ("
              + v.key
              + "): rows/s / raw client sends/s, same transport",
          Stats.ratios(relay, raw),
          DRAIN_TARGET,
          Report.num(Stats.median(relay)) + " vs " + Report.num(Stats.median(raw)) + " /s");
      List<Double> p50 = BenchSupport.col(latency.get(v.name), 0);
      rep.targetAtMost(
          "CDC commit→delivered p50 "
              + via
              + " ("
              + v.key
              + ") at "
              + Report.num(b.opt.e2eRate)
              + "/s, ms (not a ratio)",
          p50,
          P50_TARGET_MS,
          "p99 "
              + Report.ms(Stats.median(BenchSupport.col(latency.get(v.name), 1)))
              + " ms; OUTBOX ("
              + v.outboxKey
              + ") p50 "
              + Report.ms(Stats.median(BenchSupport.col(latency.get(v.outboxName), 0)))
              + " ms");
    }
  }

  private static String description() {
    return "PostgreSQL (`wal_level=logical`, pgoutput) and MariaDB (ROW binlog) only. (cdc) txmsg"
        + " with `deliveryMode(CDC)` over gRPC, (cdcr) over remoting: the same `template().execute`"
        + " and handler as (o), on a NORMAL topic of its own, own store id and table prefix (`txc_`,"
        + " `txcr_`); the local transaction writes the journal row (a CDC row) and the business row"
        + " and commits; nothing is sent on the caller's thread. Its relay (`io.txmsg.cdc.CdcRelay`,"
        + " `CdcRelaySettings.defaults()`: 10 ms poll interval, SENT in batches; a replication slot"
        + " and publication named `txmsg_bench_cdc_<run>_…` on PostgreSQL, dropped at the end)"
        + " runs during the throughput points, as in production, and sends the rows on the"
        + " producer's transport; the reconciler runs too, its CDC fallback set to 30 minutes so"
        + " that the relay sends every row (the count it sent anyway is below). **Throughput**: the"
        + " closed loop of section 1 at each concurrency, (cdc)/(cdcr) next to (o)/(or) and"
        + " (ho)/(hor) of section 1 (created anew for this section, same pool, same database), in a"
        + " shuffled order per round; after each CDC point the harness waits until the relay has"
        + " recorded every row SENT, after each OUTBOX point until its rows are SENT. **Drain**:"
        + " the relay is closed, a backlog of CDC rows is committed (8 threads), then a new relay"
        + " instance starts from the stored offsets; rows/s counts from the first row seen SENT to"
        + " the last (the relay's start-up, lease and connector, is shown apart), polling the"
        + " journal every 10 ms. The baseline is the raw client on the same transport"
        + " (rocketmq-client-java `Producer.send` / rocketmq-client `DefaultMQProducer.send`)"
        + " sending the same number of envelopes as txmsg's, one thread, synchronous, as the relay"
        + " sends (one row at a time, in commit order); the two run in a shuffled order per round."
        + " **Latency**: an open loop at the end-to-end section's offered rate; for CDC the commit"
        + " time is when `execute` returned (nothing runs after a CDC commit on the caller's"
        + " thread), for (lo)/(lor), a txmsg OUTBOX producer of its own on the same transport, the"
        + " `beforeSend` interceptor hook, right after its commit; delivered = a txmsg transport"
        + " subscription on the same transport (8 threads) receives it. One warm-up round, then"
        + " the measured rounds, CDC and OUTBOX in a shuffled order.";
  }
}
