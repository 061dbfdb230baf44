package io.txmsg.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.archive.Archiver;
import io.txmsg.testkit.db.TestDatabase;
import io.txmsg.testkit.transport.TestTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A long run at moderate load with periodic faults, for what only time shows: memory, threads and
 * connections that grow, tables that archiving does not keep bounded, rows left stuck. Not part of
 * {@code ./mvnw verify} (the module's pom excludes it); run it alone:
 *
 * <pre>
 * ./mvnw verify -pl txmsg-reliability -Dtest=SoakTest -Dtxmsg.reliability.soak.duration=PT60M
 * </pre>
 *
 * <p>One producer JVM and one consumer JVM (both groups) run for the whole time and are the ones
 * measured; every {@code txmsg.reliability.soak.faultEvery} (4 min) one fault comes, in turn: a
 * second producer SIGKILLed after its local commit, a second consumer instance SIGKILLed under
 * load, the broker SIGSTOPped for 10 s, the database unreachable for 10 s. Every minute the test
 * archives as an operator's schedule would (journal and attempts older than 2 min, consume log
 * older than its 10 min retention, which the consumers and producers are configured with), forces a
 * GC in the measured JVMs and samples their live heap, RSS, threads and open sockets from outside.
 * At the end: the checker's invariants are all 0, nothing is stuck, and each measure of the last
 * quarter stays within a bound of the second quarter's (the first quarter is warm-up). The samples
 * go to {@code target/reliability/soak-<transport>-<db>.csv}, the summary to {@code soak.md}.
 */
class SoakTest {
  private static final String DB = "io.txmsg.testkit.transport.TestTransport#realWithDatabases";
  private static final Duration RETENTION = Duration.ofMinutes(10);
  private static final Duration JOURNAL_RETENTION = Duration.ofMinutes(2);
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

  /** One sample of one JVM, measured from outside. */
  record Sample(long liveHeapKb, long rssKb, long threads, long sockets, long fds) {
    static final String[] NAMES = {"live heap KiB", "RSS KiB", "threads", "sockets", "fds"};

    /** The measures in {@link #NAMES} order. */
    long[] values() {
      return new long[] {liveHeapKb, rssKb, threads, sockets, fds};
    }
  }

  @ParameterizedTest
  @MethodSource(DB)
  void moderateLoadWithPeriodicFaultsStaysFlatAndArchived(
      TestTransport transport, TestDatabase kind) throws Exception {
    Duration duration =
        Duration.parse(System.getProperty("txmsg.reliability.soak.duration", "PT60M"));
    Duration faultEvery =
        Duration.parse(System.getProperty("txmsg.reliability.soak.faultEvery", "PT4M"));
    int rate = Integer.getInteger("txmsg.reliability.soak.rate", 20);
    Duration sampleEvery =
        Duration.parse(System.getProperty("txmsg.reliability.soak.sampleEvery", "PT1M"));
    String retention = RETENTION.toString();
    try (World w = new World(transport, kind)) {
      TxmsgStore store = TxmsgStore.detect(w.dataSource, "txmsg_");
      Child consumer =
          w.consumer(
              "soak-consumer",
              "consumeLogRetention",
              retention,
              "lifetime",
              duration.plusMinutes(30).toString());
      Child producer =
          w.producer(
              "soak-producer",
              "count",
              Long.toString(rate * duration.toSeconds()),
              "rate",
              Integer.toString(rate),
              "seconds",
              Long.toString(duration.toSeconds()),
              "stay",
              "true",
              "consumeLogRetention",
              retention);
      List<Sample[]> samples = new ArrayList<>();
      List<long[]> rows = new ArrayList<>();
      Path csv = csv(transport, kind);
      long start = System.nanoTime();
      long nextFault = start + faultEvery.toNanos();
      long nextSample = start + sampleEvery.toNanos();
      int faults = 0;
      long extraFacts = 10_000_000L; // facts of the faulted second producers
      long archived = 0;
      while (System.nanoTime() - start < duration.toNanos()) {
        long now = System.nanoTime();
        if (now >= nextFault) {
          fault(w, faults, extraFacts, retention);
          faults++;
          extraFacts += 1_000;
          nextFault += faultEvery.toNanos();
        } else if (now >= nextSample) {
          archived += archive(w, store);
          Sample p = sample(producer.pid());
          Sample c = sample(consumer.pid());
          long[] r = tableRows(w);
          samples.add(new Sample[] {p, c});
          rows.add(r);
          append(csv, (now - start) / 1_000_000_000L, p, c, r);
          System.out.printf(
              Locale.ROOT,
              "SOAK %ds producer %s consumer %s rows %d/%d archived %d%n",
              (now - start) / 1_000_000_000L,
              p,
              c,
              r[0],
              r[1],
              archived);
          nextSample += sampleEvery.toNanos();
        } else {
          Thread.sleep(1_000);
        }
      }
      producer.await("DONE", Duration.ofMinutes(5));
      World.Verdict v = w.awaitQuiet(Duration.ofMinutes(5), 0);
      Report.row(
          "soak " + duration.toMinutes() + " min, a fault every " + faultEvery.toSeconds() + " s",
          w,
          faults,
          v);
      String summary = summary(transport, kind, duration, faults, archived, samples, rows, v);
      Files.writeString(
          Path.of("target", "reliability", "soak.md"),
          summary,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      System.out.print(summary);

      assertThat(v.facts()).isGreaterThan(0);
      assertThat(v.clean()).as(v.toString()).isTrue();
      assertThat(archived).as("rows archived during the run").isPositive();
      assertThat(samples.size()).as("samples").isGreaterThanOrEqualTo(8);
      int q = samples.size() / 4;
      for (int jvm = 0; jvm < 2; jvm++) {
        String who = jvm == 0 ? "producer" : "consumer";
        Sample early = median(samples.subList(q, 2 * q), jvm);
        Sample late = median(samples.subList(samples.size() - q, samples.size()), jvm);
        assertThat(late.liveHeapKb())
            .as(who + " live heap (KiB), last quarter against the second")
            .isLessThanOrEqualTo(early.liveHeapKb() * 3 / 2 + 16 * 1024);
        assertThat(late.threads()).as(who + " threads").isLessThanOrEqualTo(early.threads() + 10);
        assertThat(late.sockets())
            .as(who + " open sockets")
            .isLessThanOrEqualTo(early.sockets() + 10);
        assertThat(late.rssKb()).as(who + " RSS (KiB)").isLessThanOrEqualTo(early.rssKb() * 3 / 2);
      }
      long[] lateRows = rows.get(rows.size() - 1);
      long bound = (long) rate * (RETENTION.toSeconds() + 2 * sampleEvery.toSeconds()) * 2;
      assertThat(lateRows[0]).as("journal rows at the end").isLessThanOrEqualTo(bound);
      assertThat(lateRows[1]).as("consume-log rows at the end").isLessThanOrEqualTo(2 * bound);
      consumer.kill();
      producer.kill();
    }
  }

  /** One fault, in turn: producer kill, consumer kill, broker pause, database outage. */
  private static void fault(World w, int n, long facts, String retention) throws Exception {
    switch (n % 4) {
      case 0 -> {
        Child p =
            w.producer(
                "soak-flaky-producer-" + n,
                "start",
                Long.toString(facts),
                "count",
                "6",
                "rate",
                "10",
                "crash",
                "AFTER_LOCAL_COMMIT",
                "crashAt",
                Long.toString(facts + 3),
                "consumeLogRetention",
                retention);
        p.await("CRASHPOINT", Duration.ofSeconds(60));
        p.kill();
        w.fault(World.Fault.KILL);
      }
      case 1 -> {
        Child c = w.consumer("soak-flaky-consumer-" + n, "consumeLogRetention", retention);
        Thread.sleep(20_000); // it takes queues and messages
        c.kill();
        w.fault(World.Fault.KILL);
      }
      case 2 -> {
        Child.signal("STOP", w.mq.pid());
        w.faultStarted(World.Fault.SILENT);
        try {
          Thread.sleep(10_000);
        } finally {
          Child.signal("CONT", w.mq.pid());
          w.faultEnded();
        }
      }
      default -> {
        w.faultStarted(World.Fault.DATABASE);
        w.outage(Duration.ofSeconds(10));
        w.faultEnded();
      }
    }
    System.out.println("SOAK fault " + n + " done at " + Instant.now());
  }

  private static long archive(World w, TxmsgStore store) {
    try {
      Archiver.Result r =
          new Archiver(w.dataSource, store)
              .run(
                  new Archiver.Policy(
                      JOURNAL_RETENTION, RETENTION, JOURNAL_RETENTION, RETENTION, 1000, false),
                  new Archiver.Audit("soak", "scheduled archive during the soak"),
                  b -> {});
      return r.totalRows();
    } catch (Exception e) {
      // During a database outage: the next minute tries again, as a scheduled job would.
      System.out.println("SOAK archive failed: " + e);
      return 0;
    }
  }

  /** Journal and consume-log rows (the live tables, not the archive). */
  private static long[] tableRows(World w) {
    try (Connection c = w.dataSource.getConnection();
        Statement s = c.createStatement()) {
      return new long[] {
        count(s, "SELECT COUNT(*) FROM txmsg_journal"),
        count(s, "SELECT COUNT(*) FROM txmsg_consume_log")
      };
    } catch (Exception e) {
      return new long[] {-1, -1};
    }
  }

  private static long count(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** A full GC through jcmd, then the live heap; RSS and threads from /proc; sockets and fds. */
  static Sample sample(long pid) throws Exception {
    jcmd(pid, "GC.run");
    Matcher m = HEAP_USED.matcher(jcmd(pid, "GC.heap_info"));
    long heap = m.find() ? Long.parseLong(m.group(1)) : -1;
    long rss = -1;
    long threads = -1;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("\\D", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    long sockets = 0;
    long fds = 0;
    try (Stream<Path> links = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : (Iterable<Path>) links::iterator) {
        fds++;
        try {
          if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
            sockets++;
          }
        } catch (java.io.IOException closedMeanwhile) {
          // the descriptor closed between the listing and the read
        }
      }
    }
    return new Sample(heap, rss, threads, sockets, fds);
  }

  private static String jcmd(long pid, String command) throws Exception {
    Process p =
        new ProcessBuilder("jcmd", Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
    }
    return out;
  }

  private static Sample median(List<Sample[]> window, int jvm) {
    long[] m = new long[Sample.NAMES.length];
    for (int i = 0; i < m.length; i++) {
      int k = i;
      long[] sorted = window.stream().mapToLong(a -> a[jvm].values()[k]).sorted().toArray();
      m[i] = sorted[sorted.length / 2];
    }
    return new Sample(m[0], m[1], m[2], m[3], m[4]);
  }

  private static Path csv(TestTransport transport, TestDatabase kind) throws Exception {
    Path dir = Path.of("target", "reliability");
    Files.createDirectories(dir);
    Path file =
        dir.resolve("soak-" + transport.name().toLowerCase(Locale.ROOT) + "-" + kind.id() + ".csv");
    Files.writeString(
        file,
        "seconds,producer_heap_kb,producer_rss_kb,producer_threads,producer_sockets,producer_fds,"
            + "consumer_heap_kb,consumer_rss_kb,consumer_threads,consumer_sockets,consumer_fds,"
            + "journal_rows,consume_log_rows\n",
        StandardCharsets.UTF_8);
    return file;
  }

  private static void append(Path csv, long seconds, Sample p, Sample c, long[] rows)
      throws Exception {
    Files.writeString(
        csv,
        String.format(
            Locale.ROOT,
            "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d%n",
            seconds,
            p.liveHeapKb(),
            p.rssKb(),
            p.threads(),
            p.sockets(),
            p.fds(),
            c.liveHeapKb(),
            c.rssKb(),
            c.threads(),
            c.sockets(),
            c.fds(),
            rows[0],
            rows[1]),
        StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
  }

  private static String summary(
      TestTransport transport,
      TestDatabase kind,
      Duration duration,
      int faults,
      long archived,
      List<Sample[]> samples,
      List<long[]> rows,
      World.Verdict v) {
    int q = Math.max(1, samples.size() / 4);
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%n### Soak %s %s, %d min, %d faults, %d rows archived, %d facts, verdict %s%n%n",
            transport.name().toLowerCase(Locale.ROOT),
            kind.id(),
            duration.toMinutes(),
            faults,
            archived,
            v.facts(),
            v));
    b.append("| JVM | measure | 2nd quarter median | last quarter median | max |\n");
    b.append("|---|---|---|---|---|\n");
    for (int jvm = 0; jvm < 2; jvm++) {
      int j = jvm;
      long[] e = median(samples.subList(q, Math.min(samples.size(), 2 * q)), jvm).values();
      long[] l =
          median(samples.subList(Math.max(0, samples.size() - q), samples.size()), jvm).values();
      for (int i = 0; i < Sample.NAMES.length; i++) {
        int k = i;
        long max = samples.stream().mapToLong(a -> a[j].values()[k]).max().orElse(-1);
        b.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %d | %d | %d |%n",
                jvm == 0 ? "producer" : "consumer",
                Sample.NAMES[i],
                e[i],
                l[i],
                max));
      }
    }
    long maxJournal = rows.stream().mapToLong(r -> r[0]).max().orElse(-1);
    long maxLog = rows.stream().mapToLong(r -> r[1]).max().orElse(-1);
    long[] last = rows.isEmpty() ? new long[] {-1, -1} : rows.get(rows.size() - 1);
    b.append(
        String.format(
            Locale.ROOT,
            "%nJournal rows: max %d, at the end %d; consume-log rows: max %d, at the end %d.%n",
            maxJournal,
            last[0],
            maxLog,
            last[1]));
    return b.toString();
  }
}
