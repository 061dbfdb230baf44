package io.txmsg.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.ProducerInterceptor;
import io.txmsg.api.TransportException;
import io.txmsg.api.TxMessage;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * A producer JVM: commits facts {@code f-<i>} (one business row each) through txmsg at a steady
 * rate. With {@code crash=<point>} it stops dead at that point of fact {@code crashAt} and waits to
 * be SIGKILLed. With {@code count=0} it only keeps the producer alive (check-backs, confirmation,
 * reconciler) until killed. With {@code awaitGo=true} it waits after READY for a line on its
 * standard input before the first fact.
 */
public final class ProducerMain {
  /**
   * Where a producer can die. In OUTBOX mode there is no half message: AFTER_LOCAL_COMMIT is before
   * the immediate send, AFTER_HALF_COMMIT after it (before SEND_OK is recorded or not).
   */
  enum CrashPoint {
    NONE,
    AFTER_HALF_SEND,
    IN_LOCAL_TX,
    AFTER_LOCAL_COMMIT,
    AFTER_HALF_COMMIT,
    /** Waits a moment after the half message (the parent SIGSTOPs it there), then carries on. */
    PAUSE_AFTER_HALF_SEND,
    /** Waits a moment inside the local transaction, attempt key locked; then carries on. */
    PAUSE_IN_LOCAL_TX,
    /**
     * Waits a moment after the local commit, before END_TRANSACTION (the parent SIGSTOPs it there:
     * committed, the half message unresolved, the connection open); then carries on.
     */
    PAUSE_AFTER_LOCAL_COMMIT
  }

  private ProducerMain() {}

  /**
   * Released by the parent's {@code CONTINUE}: with {@code pauseUntilContinue=true} a pause point
   * waits for it instead of {@link Args#PAUSE_WINDOW}, so a loaded machine cannot let the process
   * run past the point before the parent's SIGSTOP arrives.
   */
  private static final CountDownLatch CONTINUE = new CountDownLatch(1);

  private static volatile boolean pauseUntilContinue;

  private static void pausePoint(String marker) {
    if (!pauseUntilContinue) {
      Args.pausePoint(marker);
      return;
    }
    Args.say(marker);
    try {
      CONTINUE.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public static void main(String[] argv) throws Exception {
    try {
      produce(new Args(argv));
    } catch (Throwable t) {
      // Exit, so the parent sees a dead child at once instead of a live one that never says READY
      // (the clients' non-daemon threads would keep the JVM up).
      t.printStackTrace();
      System.exit(2);
    }
  }

  private static void produce(Args a) throws Exception {
    long start = a.getLong("start", 0);
    long count = a.getLong("count", 0);
    // With seconds=N the load runs for N seconds whatever fails meanwhile (broker or database
    // outages), backing off 200 ms after a failure; count then caps the number of facts.
    CrashPoint crash = CrashPoint.valueOf(a.get("crash", "NONE"));
    long crashAt = a.getLong("crashAt", -1);
    String crashEvent = "f-" + crashAt;
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(a.get("url"));
    hc.setUsername(a.get("user", ""));
    hc.setPassword(a.get("password", ""));
    // pool=N: many producers at once (the broker give-up scenario starts 20) must stay within the
    // database's connection limit (PostgreSQL's default is 100).
    hc.setMaximumPoolSize((int) a.getLong("pool", 6));
    hc.setConnectionTimeout(5_000);
    hc.setExceptionOverrideClassName(DeadH2Connections.class.getName());
    HikariDataSource ds = null;
    for (int attempt = 1; ds == null; attempt++) {
      try {
        ds = new HikariDataSource(hc);
      } catch (HikariPool.PoolInitializationException e) {
        // Seen once on MariaDB with 20 producers starting beside a kill loop: a new connection
        // closed during the pool's first checks. Try again, as for the broker below.
        if (attempt == 5) {
          throw e;
        }
        Thread.sleep(2_000);
      }
    }
    MeterRegistry meters = new SimpleMeterRegistry();
    TxProducer txmsg = null;
    for (int attempt = 1; txmsg == null; attempt++) {
      try {
        txmsg = build(a, ds, crash, crashEvent, meters);
      } catch (IllegalStateException | TransportException e) {
        // A busy or just-restarted broker can time out the client's start (the remoting client's
        // route lookup, several producers starting at once): try again.
        if (attempt == 5) {
          throw e;
        }
        Thread.sleep(2_000);
      }
    }
    CountDownLatch go = new CountDownLatch(1);
    pauseUntilContinue = Boolean.parseBoolean(a.get("pauseUntilContinue", "false"));
    listen(meters, go);
    Args.say("READY");
    if (Boolean.parseBoolean(a.get("awaitGo", "false"))) {
      // Started with others: the parent releases them together once every one is READY.
      go.await();
    }
    run(a, txmsg, start, count, crash, crashAt);
    txmsg.close();
    ds.close();
  }

  /**
   * The settings of a producer JVM started with these arguments. The parent builds the same object
   * from the same arguments to compute how long after a fault something can still arrive ({@link
   * World#settleWindow}). The retry backoff is capped at 8 s instead of the default 5 min, so that
   * a row in RETRY after an outage is due again within the suite's settle window.
   */
  static TxProducerSettings settings(Args a) {
    return new TxProducerSettings()
        .connection(Handlers.connection(a))
        .topics(a.get("topic"))
        .storeId(a.get("store"))
        .deliveryMode(DeliveryMode.valueOf(a.get("mode", "HALF_MESSAGE")))
        .publishAfter(Duration.ofSeconds(1))
        .republishAfter(Duration.ofMillis(a.getLong("republishAfterMs", 8_000)))
        .leaseDuration(Duration.ofSeconds(10))
        .retryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(8))
        .localTransactionTimeout(Duration.ofMillis(a.getLong("localTxTimeoutMs", 30_000)))
        .fenceAfterChecks(2)
        // The hung-instance takeover keeps the product defaults unless a scenario sets them
        // (staleAfterMs=0 turns it off, to measure what happens without it).
        .heartbeatInterval(Duration.ofMillis(a.getLong("heartbeatMs", 5_000)))
        .instanceStaleAfter(Duration.ofMillis(a.getLong("staleAfterMs", 30_000)))
        .consumeLogRetention(Duration.parse(a.get("consumeLogRetention", "P7D")))
        // CDC mode: how long a row waits for the relay before the reconciler sends it.
        .cdcFallbackAfter(Duration.ofMillis(a.getLong("cdcFallbackAfterMs", 60_000)));
  }

  private static TxProducer build(
      Args a, HikariDataSource ds, CrashPoint crash, String crashEvent, MeterRegistry meters) {
    return TxProducer.builder()
        .dataSource(ds)
        .settings(settings(a))
        .meterRegistry(meters, Duration.ofSeconds(1))
        .interceptor(
            new ProducerInterceptor() {
              @Override
              public void afterHalfMessageSent(TxMessage m, String attemptId) {
                if (crash == CrashPoint.AFTER_HALF_SEND && m.eventId().equals(crashEvent)) {
                  Args.hang("CRASHPOINT " + crash + " " + m.eventId());
                }
                if (crash == CrashPoint.PAUSE_AFTER_HALF_SEND && m.eventId().equals(crashEvent)) {
                  pausePoint("CRASHPOINT " + crash + " " + m.eventId());
                }
              }

              @Override
              public void beforeAction(TxMessage m, String attemptId) {
                if (crash == CrashPoint.IN_LOCAL_TX && m.eventId().equals(crashEvent)) {
                  Args.hang("CRASHPOINT " + crash + " " + m.eventId());
                }
                if (crash == CrashPoint.PAUSE_IN_LOCAL_TX && m.eventId().equals(crashEvent)) {
                  pausePoint("CRASHPOINT " + crash + " " + m.eventId());
                }
              }

              @Override
              public boolean beforeHalfMessageCommit(TxMessage m, String attemptId) {
                if (crash == CrashPoint.AFTER_LOCAL_COMMIT && m.eventId().equals(crashEvent)) {
                  Args.hang("CRASHPOINT " + crash + " " + m.eventId());
                }
                if (crash == CrashPoint.PAUSE_AFTER_LOCAL_COMMIT
                    && m.eventId().equals(crashEvent)) {
                  pausePoint("CRASHPOINT " + crash + " " + m.eventId());
                }
                return true;
              }

              /** OUTBOX: committed, the one immediate send not made. */
              @Override
              public boolean beforeSend(TxMessage m, String attemptId) {
                if (crash == CrashPoint.AFTER_LOCAL_COMMIT && m.eventId().equals(crashEvent)) {
                  Args.hang("CRASHPOINT " + crash + " " + m.eventId());
                }
                return true;
              }
            })
        .build();
  }

  /**
   * Reads the parent's commands on standard input: {@code GO} releases a producer started with
   * {@code awaitGo=true}; {@code METERS} prints one line {@code METERS name{tags}=count ...} with
   * every counter of this producer's registry (the parent asserts which delivery path worked from
   * them: check-backs answered, rows republished, given-up messages drained).
   */
  private static void listen(MeterRegistry meters, CountDownLatch go) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  if (line.equals("GO")) {
                    go.countDown();
                  } else if (line.equals("CONTINUE")) {
                    CONTINUE.countDown();
                  } else if (line.equals("METERS")) {
                    Args.say("METERS " + counters(meters));
                  }
                }
              } catch (Exception e) {
                // the parent went away
              }
            },
            "parent-commands");
    t.setDaemon(true);
    t.start();
  }

  /** Every counter as {@code name{k=v,...}=count}, space-separated. */
  static String counters(MeterRegistry meters) {
    StringBuilder b = new StringBuilder();
    meters.getMeters().stream()
        .filter(m -> m instanceof Counter)
        .forEach(
            m -> {
              Meter.Id id = m.getId();
              b.append(id.getName()).append('{');
              b.append(
                  id.getTags().stream()
                      .map(t -> t.getKey() + "=" + t.getValue())
                      .collect(Collectors.joining(",")));
              b.append("}=").append((long) ((Counter) m).count()).append(' ');
            });
    return b.toString().trim();
  }

  private static void run(
      Args a, TxProducer txmsg, long start, long count, CrashPoint crash, long crashAt)
      throws Exception {
    long seconds = a.getLong("seconds", 0);
    long deadline = seconds > 0 ? System.nanoTime() + seconds * 1_000_000_000L : Long.MAX_VALUE;
    long ratePerSecond = a.getLong("rate", 50);
    long intervalNanos = 1_000_000_000L / Math.max(1, ratePerSecond);
    long t0 = System.nanoTime();
    for (long i = start; i < start + count && System.nanoTime() < deadline; i++) {
      long due = t0 + (i - start) * intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      long fact = i;
      try {
        txmsg
            .template()
            .execute(message(a.get("topic"), fact), ctx -> insertFact(ctx.connection(), fact));
        Args.say("COMMITTED f-" + fact);
      } catch (RuntimeException e) {
        // A failed fact is not committed (or its outcome is settled by the check-back): the
        // checker only counts facts whose business row exists.
        Args.say("FAILED f-" + fact + " " + e.getClass().getSimpleName());
        if (seconds > 0) {
          Thread.sleep(200);
          t0 += 200_000_000L; // keep the pace after the pause instead of bursting
        }
      }
      if (crash == CrashPoint.AFTER_HALF_COMMIT && fact == crashAt) {
        Args.hang("CRASHPOINT " + crash + " f-" + fact);
      }
    }
    Args.say("DONE");
    if (count == 0 || a.get("stay", "false").equals("true")) {
      Args.hang("IDLE");
    }
  }

  /** Facts of 5 aggregates; the version is the fact number, so it grows per aggregate. */
  static TxMessage message(String topic, long fact) {
    return TxMessage.builder()
        .eventId("f-" + fact)
        .topic(topic)
        .eventType("FactRecorded")
        .aggregate("Acct", "a" + (fact % 5), fact + 1)
        .businessKey("fact-" + fact)
        .payload(("{\"fact\":" + fact + "}").getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static Object insertFact(Connection c, long fact) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO fact (id, aggregate_id, version) VALUES (?, ?, ?)")) {
      ps.setString(1, "f-" + fact);
      ps.setString(2, "a" + (fact % 5));
      ps.setLong(3, fact + 1);
      ps.executeUpdate();
    }
    return null;
  }
}
