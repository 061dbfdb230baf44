package io.txmsg.bench;

import static io.txmsg.bench.BenchMain.progress;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.txmsg.api.DeliveryMode;
import io.txmsg.api.MeterNames;
import io.txmsg.api.TxResult;
import io.txmsg.producer.TxProducer;
import io.txmsg.producer.TxProducerSettings;
import io.txmsg.testkit.rocketmq.TopicType;
import io.txmsg.transport.BrokerConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OUTBOX rows of the producer section: txmsg with {@code deliveryMode(OUTBOX)} on each
 * transport ((o) gRPC, (or) remoting) against the outbox a careful user writes by hand on the same
 * transport ((ho), (hor), {@link HandWrittenOutbox}). Only the variants selected with {@code
 * --variants} are started, so a run without them carries no extra reconciler or client.
 *
 * <p>Each txmsg OUTBOX producer has its own NORMAL topic, store id and table prefix: the
 * reconciler's due-row query has no store filter, so producers sharing a journal would claim each
 * other's rows (the same reason (ar) has {@code txr_}). Settings otherwise as in production:
 * confirmation SEND_OK (the OUTBOX default: SENT recorded in batches off the caller's thread),
 * reconciler on, default {@code publishAfter}.
 */
final class OutboxVariants implements AutoCloseable {
  static final String TXMSG_O = "(o) txmsg OUTBOX, gRPC";
  static final String TXMSG_OR = "(or) txmsg OUTBOX, remoting";
  static final String HAND_O = "(ho) hand-written outbox, gRPC";
  static final String HAND_OR = "(hor) hand-written outbox, remoting";

  static final String PREFIX_O = "txo_";
  static final String PREFIX_OR = "txor_";

  /** The target for txmsg OUTBOX ÷ hand-written outbox on the same transport. */
  static final double TARGET = 0.95;

  /** Per variant and concurrency, one result per round (ProducerSection keeps them). */
  interface Results {
    List<Load.Result> of(String variant, int c);
  }

  /** The txmsg OUTBOX producer of one transport and what the report reads from it. */
  private static final class Txmsg implements AutoCloseable {
    final String topic;
    final String prefix;
    final TxProducer producer;
    final SimpleMeterRegistry metrics = new SimpleMeterRegistry();

    /** Calls whose immediate send got no SEND_OK: the reconciler sends those rows. */
    final AtomicLong unsent = new AtomicLong();

    /** Seconds waited after each measured point until every row was SENT. */
    final List<Double> drains = new ArrayList<>();

    Txmsg(BenchMain b, BrokerConnection connection, String topic, String storeId, String prefix) {
      this.topic = topic;
      this.prefix = prefix;
      this.producer =
          TxProducer.builder()
              .dataSource(b.ds)
              .settings(
                  new TxProducerSettings()
                      .connection(connection)
                      .topics(topic)
                      .deliveryMode(DeliveryMode.OUTBOX)
                      .storeId(storeId)
                      .tablePrefix(prefix)
                      .autoCreateSchema(true)) // reconciler on, as in production
              .meterRegistry(metrics)
              .build();
    }

    /** The same call as (a): the business row inside {@code execute}. */
    void execute(String id) {
      TxResult<Void> r =
          producer
              .template()
              .execute(
                  Messages.txMessage(topic, id),
                  ctx -> {
                    BenchMain.insertPayment(ctx.connection(), id);
                    return null;
                  });
      if (!r.brokerAcknowledged()) { // OUTBOX: the synchronous send after commit
        unsent.incrementAndGet();
      }
    }

    @Override
    public void close() throws Exception {
      producer.close();
    }
  }

  private final BenchMain b;
  private final Map<String, Txmsg> txmsg = new LinkedHashMap<>();
  private final Map<String, HandWrittenOutbox> hand = new LinkedHashMap<>();

  /**
   * Counters at the start of the measured rounds: republished and check-backs per txmsg variant.
   */
  private final Map<String, long[]> before = new LinkedHashMap<>();

  private final Map<String, long[]> after = new LinkedHashMap<>();

  OutboxVariants(BenchMain b) throws Exception {
    this.b = b;
    List<String> selected = b.opt.variants;
    try {
      if (selected.contains(ProducerSection.key(TXMSG_O))) {
        String t = topic("bench-outbox-");
        txmsg.put(TXMSG_O, new Txmsg(b, b.connection(), t, "bench-outbox", PREFIX_O));
      }
      if (selected.contains(ProducerSection.key(TXMSG_OR))) {
        String t = topic("bench-outbox-r-");
        txmsg.put(TXMSG_OR, new Txmsg(b, b.remotingConnection(), t, "bench-outbox-r", PREFIX_OR));
      }
      if (selected.contains(ProducerSection.key(HAND_O))) {
        hand.put(HAND_O, HandWrittenOutbox.grpc(b, topic("bench-raw-outbox-")));
      }
      if (selected.contains(ProducerSection.key(HAND_OR))) {
        String t = topic("bench-raw-outbox-r-");
        hand.put(HAND_OR, HandWrittenOutbox.remoting(b, t, "bench-raw-outbox-r-" + b.run));
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** A NORMAL topic of this run: an OUTBOX send is a plain message. */
  private String topic(String prefix) {
    String t = prefix + b.run;
    b.mq.createTopic(t, TopicType.NORMAL);
    return t;
  }

  /** The selected variants (the section shuffles their order per round). */
  void addTo(Map<String, Load.Op> ops) {
    for (String[] pair : new String[][] {{TXMSG_O, HAND_O}, {HAND_OR, TXMSG_OR}}) {
      for (String v : pair) {
        if (txmsg.containsKey(v)) {
          Txmsg t = txmsg.get(v);
          ops.put(v, t::execute);
        } else if (hand.containsKey(v)) {
          HandWrittenOutbox h = hand.get(v);
          ops.put(v, h::send);
        }
      }
    }
  }

  /**
   * After a point of a txmsg OUTBOX variant: wait until its SENT updates (batched) and any
   * republish are done, so its backlog does not load the next variant. Recorded only when {@code
   * record}.
   */
  void afterPoint(String v, boolean record) throws Exception {
    Txmsg t = txmsg.get(v);
    if (t != null) {
      double s = BenchSupport.drain(b.ds, t.prefix);
      if (record) {
        t.drains.add(s);
      }
    }
  }

  void startCounting() {
    counters(before);
  }

  void stopCounting() {
    counters(after);
  }

  /** Per variant {republished, check-backs answered, sends without SEND_OK}. */
  private void counters(Map<String, long[]> into) {
    txmsg.forEach(
        (v, t) ->
            into.put(
                v,
                new long[] {
                  BenchMain.counted(t.metrics, MeterNames.RECONCILE_REPUBLISHED),
                  BenchMain.counted(t.metrics, MeterNames.CHECKBACK),
                  t.unsent.get()
                }));
    hand.forEach((v, h) -> into.put(v, new long[] {0, 0, h.unsent.get()}));
  }

  /** The difference of counter {@code i} of {@code v} over the measured rounds. */
  private long counted(String v, int i) {
    return after.get(v)[i] - before.get(v)[i];
  }

  boolean ran() {
    return !txmsg.isEmpty() || !hand.isEmpty();
  }

  // ---------------------------------------------------------------- report

  /** What the OUTBOX variants are, for the section's description. */
  static String description() {
    return "(o) txmsg with `deliveryMode(OUTBOX)` over gRPC: the same `template().execute` and"
        + " handler as (a), on a NORMAL topic; in the local transaction the journal row (this"
        + " call's attempt id), the business row and the self-check that re-reads the journal row"
        + " FOR UPDATE, commit, then one synchronous send; SENT is recorded on SEND_OK (the OUTBOX"
        + " default confirmation) in batches off the caller's thread; reconciler on, as in"
        + " production; own store id and table prefix `txo_`. (or) the same over remoting"
        + " (prefix `txor_`). (ho) the outbox a careful user writes by hand on"
        + " rocketmq-client-java (gRPC): one JDBC transaction with the business row and an outbox"
        + " row (`raw_outbox`: id primary key, topic, payload, status PENDING, created_at, and an"
        + " index on (status, created_at) for its relay), commit, one synchronous `send` of a"
        + " normal message (no half message, no check-back), then `UPDATE raw_outbox SET status ="
        + " 'SENT' WHERE id = ?` on the caller's thread. A failed send leaves the row PENDING for"
        + " the relay and is not an error of the call (as in txmsg); the relay itself does not"
        + " run, the rows it would send are counted. (hor) the same by hand on rocketmq-client"
        + " (remoting): a `DefaultMQProducer`, `send` = SEND_OK. (ho)/(hor) send the bare message"
        + " of (b); txmsg sends its envelope.";
  }

  /** The OUTBOX table at concurrency {@code c}; nothing when no OUTBOX variant ran. */
  void writeConcurrency(Report rep, int c, Results results) {
    if (!ran()) {
      return;
    }
    rep.p("**OUTBOX mode, concurrency " + c + "**");
    rep.table(
        "variant",
        "ops/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "× hand-written outbox of its transport ((ho)/(hor)), per round",
        "× txmsg HALF_MESSAGE of its transport ((a)/(ar)), per round",
        "× hand-written half message + journal of its transport ((b)/(br)), per round");
    for (String v : List.of(TXMSG_O, HAND_O, TXMSG_OR, HAND_OR)) {
      List<Double> tp = Load.perSecond(results.of(v, c));
      if (tp.isEmpty()) {
        continue;
      }
      boolean grpc = v.equals(TXMSG_O) || v.equals(HAND_O);
      boolean isHand = v.equals(HAND_O) || v.equals(HAND_OR);
      long errs = 0;
      for (Load.Result r : results.of(v, c)) {
        errs += r.errors();
      }
      rep.row(
          v,
          Report.num(Stats.median(tp)),
          Report.ms(Stats.median(Load.latencies(results.of(v, c), true))),
          Report.ms(Stats.median(Load.latencies(results.of(v, c), false))),
          errs,
          isHand
              ? "–"
              : Stats.ratioSpread(tp, Load.perSecond(results.of(grpc ? HAND_O : HAND_OR, c))),
          Stats.ratioSpread(
              tp,
              Load.perSecond(
                  results.of(grpc ? ProducerSection.TXMSG : ProducerSection.TXMSG_R, c))),
          Stats.ratioSpread(
              tp,
              Load.perSecond(results.of(grpc ? ProducerSection.RAW : ProducerSection.RAW_R, c))));
    }
    rep.end();
  }

  /** The OUTBOX targets at the target concurrency. */
  void writeTargets(Report rep, int c, Results results) {
    target(rep, c, results, TXMSG_OR, HAND_OR, "remoting");
    target(rep, c, results, TXMSG_O, HAND_O, "gRPC");
  }

  private void target(Report rep, int c, Results results, String tx, String base, String via) {
    List<Double> t = Load.perSecond(results.of(tx, c));
    List<Double> h = Load.perSecond(results.of(base, c));
    if (t.isEmpty() || h.isEmpty()) {
      return;
    }
    rep.target(
        "producer OUTBOX "
            + via
            + ", c="
            + c
            + ": txmsg "
            + tx.substring(0, tx.indexOf(')') + 1)
            + " / hand-written outbox "
            + base.substring(0, base.indexOf(')') + 1),
        Stats.ratios(t, h),
        TARGET,
        Report.num(Stats.median(t)) + " vs " + Report.num(Stats.median(h)) + " ops/s");
    b.outboxTargets++;
  }

  /** Errors, check-backs, republishes and unsent rows of each OUTBOX variant over the rounds. */
  void writeWork(Report rep, Results results, int[] concurrency) throws Exception {
    if (!ran()) {
      return;
    }
    rep.p("**OUTBOX variants**");
    rep.table(
        "variant",
        "errors",
        "check-backs answered",
        "immediate sends without SEND_OK",
        "rows republished by the reconciler",
        "rows left PENDING at the end");
    for (var e : txmsg.entrySet()) {
      String v = e.getKey();
      rep.row(
          v,
          errors(results, v, concurrency),
          counted(v, 1),
          counted(v, 2),
          counted(v, 0),
          Sql.count(
              b.ds,
              "SELECT COUNT(*) FROM " + e.getValue().prefix + "journal WHERE status <> 'SENT'"));
    }
    for (var e : hand.entrySet()) {
      HandWrittenOutbox h = e.getValue();
      rep.row(
          e.getKey(),
          errors(results, e.getKey(), concurrency),
          "– (no half message)",
          counted(e.getKey(), 2),
          "– (its relay does not run)",
          h.pending());
      if (h.firstSendFailure() != null) {
        progress("%s: first failed send: %s", e.getKey(), h.firstSendFailure());
      }
    }
    rep.end();
    List<String> waits = new ArrayList<>();
    txmsg.forEach(
        (v, t) -> waits.add(Report.num(Stats.median(t.drains)) + " s after " + v + " points"));
    if (!waits.isEmpty()) {
      rep.p(
          "Counts over the measured rounds (warm-up excluded), except the rows left PENDING, read"
              + " at the end of the section (the hand-written ones include any of the warm-up)."
              + " After each txmsg OUTBOX point the harness waits until every journal row of that"
              + " producer is SENT (batched SEND_OK updates, and a republish if a send failed):"
              + " median wait "
              + String.join(", ", waits)
              + ".");
    }
  }

  private static long errors(Results results, String v, int[] concurrency) {
    long n = 0;
    for (int c : concurrency) {
      for (Load.Result r : results.of(v, c)) {
        n += r.errors();
      }
    }
    return n;
  }

  @Override
  public void close() throws Exception {
    for (Txmsg t : txmsg.values()) {
      BenchSupport.quietly(t::close);
    }
    for (HandWrittenOutbox h : hand.values()) {
      BenchSupport.quietly(h::close);
    }
  }
}
