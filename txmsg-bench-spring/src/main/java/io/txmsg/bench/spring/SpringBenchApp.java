package io.txmsg.bench.spring;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.spring.core.RocketMQTemplate;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The rocketmq-spring side of the benchmarks, in its own JVM. Reads commands on stdin, answers one
 * {@code RESULT} line per command on stdout:
 *
 * <ul>
 *   <li>{@code producer <threads> <warmupMs> <measureMs>} → {@code RESULT producer ops errors
 *       seconds p50Ms p99Ms}: transactional sends through RocketMQTemplate whose local transaction
 *       inserts the business row and a journal row (the table the checker reads);
 *   <li>{@code e2e <perSecond> <count>} → {@code RESULT e2e count seconds p50Ms p99Ms heapMedMb
 *       heapMaxMb rssMedMb rssMaxMb lateP99Ms errors complete}: the same sends to the e2e topic,
 *       started at a fixed rate (an open loop: each send starts at its scheduled time, whatever the
 *       earlier ones do, on a pool of {@link #E2E_SENDERS} threads; lateP99Ms says how late the
 *       starts were), consumed by a {@code @RocketMQMessageListener} that inserts a credit row in
 *       its own transaction; latency is local commit → the listener's commit;
 *   <li>{@code checkbacks} → {@code RESULT checkbacks n}: check-backs answered so far;
 *   <li>{@code quit}.
 * </ul>
 *
 * <p>The tables (payment, the journal, credit) are created by txmsg-bench on the database under
 * test, which this JVM reaches through {@code spring.datasource.*}.
 */
@SpringBootApplication
public class SpringBenchApp {
  static final ConcurrentHashMap<String, Long> COMMITTED_AT = new ConcurrentHashMap<>();
  static volatile E2eRun e2e;

  public static void main(String[] args) throws Exception {
    SpringApplication app = new SpringApplication(SpringBenchApp.class);
    app.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    ConfigurableApplicationContext ctx = app.run(args);
    RocketMQTemplate template = ctx.getBean(RocketMQTemplate.class);
    String topic = ctx.getEnvironment().getRequiredProperty("bench.topic");
    String e2eTopic = ctx.getEnvironment().getRequiredProperty("bench.e2e-topic");
    System.out.println("READY");
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] c = line.trim().split("\\s+");
      try {
        switch (c[0]) {
          case "producer" ->
              producer(
                  template,
                  topic,
                  Integer.parseInt(c[1]),
                  Long.parseLong(c[2]),
                  Long.parseLong(c[3]));
          case "e2e" -> e2e(template, e2eTopic, Double.parseDouble(c[1]), Integer.parseInt(c[2]));
          case "checkbacks" ->
              System.out.println("RESULT checkbacks " + BenchTransactionListener.CHECKBACKS.get());
          case "quit" -> {
            System.out.println("RESULT quit");
            System.out.flush();
            ctx.close();
            System.exit(0);
          }
          default -> System.out.println("RESULT error unknown command " + line);
        }
      } catch (Exception e) {
        e.printStackTrace();
        System.out.println("RESULT error " + e);
      }
      System.out.flush();
    }
    ctx.close();
    System.exit(0);
  }

  private static final AtomicLong IDS = new AtomicLong();

  /** Threads that start the e2e sends at their scheduled times. */
  static final int E2E_SENDERS = 32;

  /** What one send hands to the local transaction: the event id, its topic and payload. */
  record Send(String id, String topic, String body) {}

  static void send(RocketMQTemplate template, String topic, String id) {
    String body =
        "{\"id\":\"" + id + "\",\"amount\":100,\"currency\":\"EUR\",\"account\":\"acct-1\"}";
    Message<String> m = MessageBuilder.withPayload(body).setHeader("eid", id).build();
    TransactionSendResult r =
        template.sendMessageInTransaction(topic, m, new Send(id, topic, body));
    if (r.getLocalTransactionState() != LocalTransactionState.COMMIT_MESSAGE) {
      throw new IllegalStateException("local transaction " + r.getLocalTransactionState());
    }
  }

  static void producer(
      RocketMQTemplate template, String topic, int threads, long warmupMs, long measureMs)
      throws InterruptedException {
    long start = System.nanoTime();
    long from = start + warmupMs * 1_000_000;
    long end = from + measureMs * 1_000_000;
    List<long[]> lat = new ArrayList<>();
    int[] sizes = new int[threads];
    long[] errors = new long[threads];
    long[] last = new long[threads];
    CountDownLatch done = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      long[] buf = new long[1 << 20];
      lat.add(buf);
      int ti = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  while (true) {
                    long t0 = System.nanoTime();
                    if (t0 >= end) {
                      break;
                    }
                    boolean ok = true;
                    try {
                      send(template, topic, "sp-" + IDS.incrementAndGet());
                    } catch (Exception e) {
                      ok = false;
                    }
                    long t1 = System.nanoTime();
                    if (t0 >= from) {
                      if (ok && sizes[ti] < buf.length) {
                        buf[sizes[ti]++] = t1 - t0;
                      } else if (!ok) {
                        errors[ti]++;
                      }
                      last[ti] = t1;
                    }
                  }
                } finally {
                  done.countDown();
                }
              });
      th.setDaemon(true);
      th.start();
    }
    done.await();
    long lastEnd = end;
    for (long l : last) {
      lastEnd = Math.max(lastEnd, l);
    }
    long[] all = merge(lat, sizes);
    long errs = Arrays.stream(errors).sum();
    System.out.printf(
        Locale.ROOT,
        "RESULT producer %d %d %.4f %.4f %.4f%n",
        all.length,
        errs,
        (lastEnd - from) / 1e9,
        pct(all, 0.5),
        pct(all, 0.99));
  }

  static void e2e(RocketMQTemplate template, String topic, double perSecond, int count)
      throws Exception {
    E2eRun run = new E2eRun(count);
    e2e = run;
    Sampler sampler = new Sampler();
    sampler.start();
    AtomicLong errors = new AtomicLong();
    long[] late = new long[count];
    ExecutorService senders = Executors.newFixedThreadPool(E2E_SENDERS);
    long start = System.nanoTime();
    double interval = 1e9 / perSecond;
    for (int i = 0; i < count; i++) {
      long due = start + (long) (i * interval);
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      int slot = i;
      senders.execute(
          () -> {
            late[slot] = Math.max(0, System.nanoTime() - due);
            try {
              send(template, topic, "e2e-" + IDS.incrementAndGet());
            } catch (Exception e) {
              errors.incrementAndGet();
              run.handled.countDown(); // never applied: do not wait for it
            }
          });
    }
    senders.shutdown();
    senders.awaitTermination(10, TimeUnit.MINUTES);
    boolean all = run.handled.await(120, TimeUnit.SECONDS);
    long end = run.lastHandled.get();
    sampler.stop = true;
    sampler.join();
    long[] lat = run.latencies();
    Arrays.sort(late);
    System.out.printf(
        Locale.ROOT,
        "RESULT e2e %d %.4f %.4f %.4f %.1f %.1f %.1f %.1f %.4f %d %s%n",
        lat.length,
        (end - start) / 1e9,
        pct(lat, 0.5),
        pct(lat, 0.99),
        sampler.heapMedian(),
        sampler.heapMax(),
        sampler.rssMedian(),
        sampler.rssMax(),
        pct(late, 0.99),
        errors.get(),
        all ? "complete" : "incomplete");
    e2e = null;
  }

  static long[] merge(List<long[]> bufs, int[] sizes) {
    int n = Arrays.stream(sizes).sum();
    long[] all = new long[n];
    int at = 0;
    for (int i = 0; i < bufs.size(); i++) {
      System.arraycopy(bufs.get(i), 0, all, at, sizes[i]);
      at += sizes[i];
    }
    Arrays.sort(all);
    return all;
  }

  static double pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  /** One e2e run: latencies of the first delivery of each event. */
  static final class E2eRun {
    final CountDownLatch handled;
    final AtomicLong lastHandled = new AtomicLong();
    private final long[] lat;
    private final AtomicLong n = new AtomicLong();
    private final ConcurrentHashMap<String, Boolean> seen = new ConcurrentHashMap<>();

    E2eRun(int count) {
      handled = new CountDownLatch(count);
      lat = new long[count];
    }

    void handled(String id, long now) {
      Long committed = COMMITTED_AT.remove(id);
      if (committed == null || seen.putIfAbsent(id, Boolean.TRUE) != null) {
        return;
      }
      int i = (int) n.getAndIncrement();
      if (i < lat.length) {
        lat[i] = now - committed;
      }
      lastHandled.accumulateAndGet(now, Math::max);
      handled.countDown();
    }

    long[] latencies() {
      long[] a = Arrays.copyOf(lat, (int) Math.min(n.get(), lat.length));
      Arrays.sort(a);
      return a;
    }
  }

  /** Samples heap used and RSS every 200 ms. */
  static final class Sampler extends Thread {
    volatile boolean stop;
    final List<Double> heap = new ArrayList<>();
    final List<Double> rss = new ArrayList<>();

    Sampler() {
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!stop) {
        heap.add(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0);
        rss.add(rssMb());
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    double heapMedian() {
      return median(heap);
    }

    double heapMax() {
      return heap.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    double rssMedian() {
      return median(rss);
    }

    double rssMax() {
      return rss.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static double median(List<Double> v) {
      if (v.isEmpty()) {
        return Double.NaN;
      }
      List<Double> s = new ArrayList<>(v);
      s.sort(null);
      return s.get(s.size() / 2);
    }

    static double rssMb() {
      try {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
          if (l.startsWith("VmRSS:")) {
            return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0;
          }
        }
      } catch (Exception e) {
        // not Linux
      }
      return Double.NaN;
    }
  }
}
