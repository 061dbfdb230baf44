package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.txmsg.producer.Reconciler;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.store.TablePrefix;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.archive.Archiver;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.rocketmq.client.apis.producer.Transaction;

/** 5. Store: bytes per event, reconciler republish rate, archive rate. */
final class StoreSection {
  private static final List<String> TABLES =
      List.of(
          "txmsg_journal",
          "txmsg_attempt",
          "txmsg_consume_log",
          "txmsg_aggregate_version",
          "raw_journal",
          HandJournal.TABLE);

  /** Terminal rows per table and round for the archive. */
  private static final int ARCHIVE_ROWS = 20_000;

  /** Tables of the producer whose reconciler is measured (see reconcilerRepublish). */
  private static final String RC_PREFIX = "rc_";

  private static final String RC_STORE = "bench-rc";

  private final BenchMain b;

  StoreSection(BenchMain b) {
    this.b = b;
  }

  void run() throws Exception {
    progress("== 5. store: bytes per event, reconciler republish, archive");
    b.report.h2("5. Store: bytes per event, reconciler, archive");
    bytesPerEvent();
    reconcilerRepublish();
    archive();
  }

  // ---------------------------------------------------------------- bytes per event

  /** Bytes per event, on the rows the runs above wrote. */
  private void bytesPerEvent() throws Exception {
    Report rep = b.report;
    rep.h3("Bytes per event");
    rep.p(
        "Table size (data + indexes) / rows, on the rows written by the runs above. PostgreSQL:"
            + " `pg_total_relation_size`; MariaDB: information_schema `data_length + index_length`"
            + " after ANALYZE (InnoDB pages, so small tables round up); H2 in memory has no"
            + " size function: the figure is the sum of the stored values' octet lengths, i.e."
            + " **data only, without row overhead and indexes** (a lower bound).");
    rep.table("table", "rows", "bytes", "bytes / row");
    try (Connection c = b.ds.getConnection()) {
      for (String t : TABLES) {
        tableRow(rep, c, t);
      }
    }
    rep.end();
    rep.p(
        "Per produced event txmsg keeps one journal row + one attempt row (the attempt row is"
            + " archived soon: it only has to outlive the broker's check window); per consumed event"
            + " and group one consume-log row (+ one version row per aggregate with the guard).");
  }

  private void tableRow(Report rep, Connection c, String t) throws Exception {
    long rows = Sql.queryLong(c, "SELECT COUNT(*) FROM " + t);
    long bytes = tableBytes(c, t);
    progress("  %-24s %9d rows %12d bytes %8.0f bytes/row", t, rows, bytes, (double) bytes / rows);
    rep.row(
        "`"
            + t
            + "`"
            + (t.equals("raw_journal")
                ? " (baselines b, br, f, d)"
                : t.equals(HandJournal.TABLE) ? " (baselines b+, br+, c)" : ""),
        rows,
        bytes < 0 ? "–" : Report.num(bytes),
        rows == 0 || bytes < 0 ? "–" : Report.num((double) bytes / rows));
  }

  /** The table's size in bytes, or -1 when the database cannot tell. */
  private long tableBytes(Connection c, String t) {
    try {
      return b.sql.tableBytes(c, t);
    } catch (Exception e) {
      progress("  size of %s not available: %s", t, e);
      return -1;
    }
  }

  // ---------------------------------------------------------------- reconciler

  /**
   * The reconciler against the raw send rate of the same transport (gRPC, no TLS) and topic type
   * (TRANSACTION), paired round by round. The reconciler measured here belongs to a producer of its
   * own on tables prefixed {@code rc_}: (a)'s reconciler runs in the background (as in production)
   * and would otherwise take part of the rows, since due rows are claimed without a store filter.
   */
  private void reconcilerRepublish() throws Exception {
    int rows = b.opt.consumeMessages / 2;
    int wide = new TxProducerSettings().reconcileConcurrency();
    List<Double> rates = new ArrayList<>();
    List<Double> rawRates = new ArrayList<>();
    List<Double> wideRates = new ArrayList<>();
    List<Double> wideRawRates = new ArrayList<>();
    try (TxProducer rc = reconcilerProducer(1);
        TxProducer rcWide = reconcilerProducer(wide);
        RawClient raw = new RawClient(b, b.txTopic)) {
      Messages messages = new Messages(b.provider);
      Load.Op rawSend =
          id -> {
            Transaction tx = raw.producer.beginTransaction();
            raw.producer.send(messages.envelope(b.txTopic, id, true), tx);
            tx.commit();
          };
      for (int round = 1; round <= b.opt.rounds; round++) {
        rates.add(republishRate(rc, "rc" + round + b.run, rows));
        rawRates.add(Load.run("rr", 1, b.opt.warmupMs, b.opt.measureMs, rawSend).perSecond());
        wideRates.add(republishRate(rcWide, "rw" + round + b.run, rows));
        wideRawRates.add(
            Load.run("rw", wide, b.opt.warmupMs, b.opt.measureMs, rawSend).perSecond());
        progress(
            "round %d reconciler %.0f rows/s (1 in flight), raw %.0f/s (1 thread); %.0f rows/s"
                + " (%d in flight), raw %.0f/s (%d threads)",
            round, last(rates), last(rawRates), last(wideRates), wide, last(wideRawRates), wide);
      }
    }
    writeReconcilerReport(rows, wide, rates, rawRates, wideRates, wideRawRates);
  }

  private static double last(List<Double> xs) {
    return xs.get(xs.size() - 1);
  }

  /** Fills {@code rows} due rows, republishes them all with {@code rc}; rows per second. */
  private double republishRate(TxProducer rc, String prefix, int rows) throws Exception {
    fillDuePending(prefix, rows);
    long t0 = System.nanoTime();
    long done = republishAll(rc.reconciler());
    double rate = done / ((System.nanoTime() - t0) / 1e9);
    BenchSupport.drain(b.ds, RC_PREFIX);
    return rate;
  }

  private TxProducer reconcilerProducer(int concurrency) throws Exception {
    return TxProducer.builder()
        .dataSource(b.ds)
        .settings(
            new TxProducerSettings()
                .connection(b.connection())
                .topics(b.txTopic)
                .storeId(RC_STORE)
                .tablePrefix(RC_PREFIX)
                .autoCreateSchema(true)
                .reconcileConcurrency(concurrency)
                .reconcilerEnabled(false)) // driven by hand below, one round after the other
        .build();
  }

  private void writeReconcilerReport(
      int rows,
      int wide,
      List<Double> rates,
      List<Double> rawRates,
      List<Double> wideRates,
      List<Double> wideRawRates) {
    Report rep = b.report;
    rep.h3("Reconciler republish");
    rep.p(
        rows
            + " due PENDING rows per round (bulk-inserted), then `Reconciler.drain()`, what the"
            + " scheduler runs, until it claims nothing (batches of "
            + new TxProducerSettings().reconcileBatchSize()
            + " back to back, the next claimed while the current one's sends are in flight; one"
            + " transactional send + commit per row; one read and one recording UPDATE per batch),"
            + " once with `reconcileConcurrency(1)` and once with the default "
            + wide
            + " sends in flight. Baseline, in the same round: the raw client sending the same"
            + " message (the txmsg envelope) to the same TRANSACTION topic over gRPC without TLS,"
            + " send + commit, with 1 and with "
            + wide
            + " threads, for "
            + b.opt.measureMs
            + " ms each. Medians over "
            + b.opt.rounds
            + " rounds: **"
            + Report.num(Stats.median(rates))
            + " rows/s** (1 in flight) against **"
            + Report.num(Stats.median(rawRates))
            + " sends/s** (1 thread), per-round ratio "
            + Stats.spread(Stats.ratios(rates, rawRates))
            + "; **"
            + Report.num(Stats.median(wideRates))
            + " rows/s** ("
            + wide
            + " in flight) against **"
            + Report.num(Stats.median(wideRawRates))
            + " sends/s** ("
            + wide
            + " threads), per-round ratio "
            + Stats.spread(Stats.ratios(wideRates, wideRawRates))
            + ".");
    rep.target(
        "reconciler republish / raw send, same transport and topic type (1 thread each)",
        Stats.ratios(rates, rawRates),
        0.8,
        Report.num(Stats.median(rates)) + " vs " + Report.num(Stats.median(rawRates)) + " /s");
    rep.target(
        "reconciler republish / raw send, same transport and topic type ("
            + wide
            + " in flight each, the default)",
        Stats.ratios(wideRates, wideRawRates),
        0.8,
        Report.num(Stats.median(wideRates))
            + " vs "
            + Report.num(Stats.median(wideRawRates))
            + " /s");
  }

  /** Bulk-inserts {@code rows} PENDING journal rows created a day ago, so all are due. */
  private void fillDuePending(String prefix, int rows) throws Exception {
    Sql.update(
        b.ds,
        b.sql.journalFill(
            RC_PREFIX,
            RC_STORE,
            prefix,
            1,
            rows,
            "PENDING",
            b.txTopic,
            BenchMain.PAYLOAD,
            b.sql.daysAgo(1),
            b.sql.now()));
  }

  /**
   * Runs what the scheduler runs ({@link Reconciler#drain()}) until it claims nothing; returns the
   * rows republished.
   */
  private static long republishAll(Reconciler reconciler) throws Exception {
    long done = 0;
    while (true) {
      Reconciler.Round r = reconciler.drain();
      done += r.republished();
      if (r.claimed() == 0) {
        break;
      }
    }
    return done;
  }

  // ---------------------------------------------------------------- archive

  private void archive() throws Exception {
    Map<Archiver.Table, List<Double>> archRates = new LinkedHashMap<>();
    Archiver archiver = new Archiver(b.ds, TxmsgStore.detect(b.ds, TablePrefix.DEFAULT));
    for (int round = 1; round <= b.opt.rounds; round++) {
      fillArchivable("ar" + round + b.run);
      Archiver.Result r =
          archiver.run(
              new Archiver.Policy(
                  Duration.ofDays(1), Duration.ofDays(8), Duration.ofDays(1), null, 1000, false),
              new Archiver.Audit("txmsg-bench", "benchmark round " + round),
              x -> {});
      StringBuilder line = new StringBuilder();
      for (Archiver.TableResult t : r.tables()) {
        archRates.computeIfAbsent(t.table(), k -> new ArrayList<>()).add(t.rowsPerSecond());
        line.append(
            String.format(
                Locale.ROOT,
                " %s %d rows %.0f rows/s;",
                t.table().label(),
                t.rows(),
                t.rowsPerSecond()));
      }
      progress("round %d archive:%s", round, line);
    }
    writeArchiveReport(archRates);
  }

  /** Journal, attempt and consume-log rows 30 days old, all terminal. */
  private void fillArchivable(String prefix) throws Exception {
    String old = b.sql.daysAgo(30);
    Sql.update(
        b.ds,
        b.sql.journalFill(prefix, 1, ARCHIVE_ROWS, "SENT", b.txTopic, BenchMain.PAYLOAD, old, old));
    Sql.update(b.ds, b.sql.attemptFill(prefix, 1, ARCHIVE_ROWS, old));
    Sql.update(b.ds, b.sql.consumeLogFill(prefix, 1, ARCHIVE_ROWS, old));
  }

  private void writeArchiveReport(Map<Archiver.Table, List<Double>> archRates) {
    Report rep = b.report;
    rep.h3(
        "Archive (`io.txmsg.store.archive.Archiver`, copy to *_archive + delete, batches of 1000)");
    rep.p(
        ARCHIVE_ROWS
            + " terminal rows 30 days old per table per round; median over "
            + b.opt.rounds
            + " rounds.");
    rep.table("table", "rows/s");
    archRates.forEach((t, v) -> rep.row(t.label(), Report.num(Stats.median(v))));
    rep.end();
  }
}
