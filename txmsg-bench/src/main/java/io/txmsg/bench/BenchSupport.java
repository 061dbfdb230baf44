package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/** Small helpers shared by the benchmark sections. */
final class BenchSupport {
  private BenchSupport() {}

  /** A piece of work that may throw. */
  @FunctionalInterface
  interface Work {
    void run() throws Exception;
  }

  /** Runs {@code w} on {@code threads} threads at once and waits for all of them. */
  static void parallel(int threads, Work w) throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    List<Future<?>> fs = new ArrayList<>();
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

  /** Runs {@code w} and only reports a failure (for closing). */
  static void quietly(Work w) {
    try {
      w.run();
    } catch (Exception e) {
      progress("close: %s", e);
    }
  }

  /** Waits until no journal row is PENDING (the confirmer caught up); returns the seconds. */
  static double drain(DataSource ds) throws Exception {
    return drain(ds, "txmsg_");
  }

  /** The same for the journal of another table prefix. */
  static double drain(DataSource ds, String tablePrefix) throws Exception {
    long t0 = System.nanoTime();
    long until = t0 + 60_000_000_000L;
    long nextReport = t0 + 5_000_000_000L;
    long left;
    while ((left =
            Sql.count(ds, "SELECT COUNT(*) FROM " + tablePrefix + "journal WHERE status <> 'SENT'"))
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

  /** Waits (at most 60 s) until every row of one store in the default journal is SENT. */
  static double drainStore(DataSource ds, String storeId) throws Exception {
    long t0 = System.nanoTime();
    long until = t0 + 60_000_000_000L;
    String sql =
        "SELECT COUNT(*) FROM txmsg_journal WHERE status <> 'SENT' AND store_id = '"
            + storeId
            + "'";
    long left;
    while ((left = Sql.count(ds, sql)) > 0) {
      if (System.nanoTime() > until) {
        progress("  ! %d journal rows of %s still not SENT after 60 s", left, storeId);
        break;
      }
      Thread.sleep(20);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Column {@code i} of the rows (none when {@code rows} is null). */
  static List<Double> col(List<double[]> rows, int i) {
    List<Double> out = new ArrayList<>();
    if (rows != null) {
      for (double[] r : rows) {
        out.add(r[i]);
      }
    }
    return out;
  }

  /** The largest value; NaN when empty. */
  static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  static DataSource unused() {
    return null;
  }
}
