package io.txmsg.producer;

import io.txmsg.api.PublishException;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.Journal;
import io.txmsg.store.journal.JournalClaims;
import io.txmsg.store.journal.JournalRow;
import io.txmsg.store.journal.PublishMode;
import io.txmsg.transport.Backoff;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Republishes committed rows that were not confirmed in time: the journal is also an outbox, so a
 * committed fact never depends on the broker's check-back alone (the broker may give up, a oneway
 * commit may be lost, the producer may die).
 *
 * <p>Each round claims due rows (PENDING/RETRY past next_retry_at, SENDING with an expired lease)
 * with a fresh owner token and lease in a short transaction, then publishes them byte-identically,
 * each the way its row records ({@code publish_mode}: a half message committed at once for
 * HALF_MESSAGE rows, whose topics are TRANSACTION topics; a plain or FIFO send for SEND rows and
 * for CDC rows, which become due only cdcFallbackAfter after they were written), so a store that
 * switched modes strands nothing, without holding any row lock. FIFO rows are claimed in
 * aggregate-version order only (a lower unsent version of the aggregate, or another row of the
 * group in flight, holds a row back; see JournalMapper.xml "inOrder"). Every later update matches
 * only while the owner token does, so a taken-over lease's late update changes nothing. Several
 * instances may run at once.
 *
 * <p>Before claiming, a round also takes over the store's hung instances ({@link
 * InstanceLiveness}): the committed half-message rows of an instance whose heartbeat is older than
 * {@code instanceStaleAfter} are made due now, so they are republished here within about that time
 * instead of after {@code republishAfter}. A duplicate at worst, never a lost or phantom event.
 */
public final class Reconciler {
  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final Journal journal;
  private final JournalClaims claims;
  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final ProducerMetrics metrics;
  private final ProducerObservations observations;
  private final InstanceLiveness liveness;
  private volatile ExecutorService senders;
  private volatile boolean closed;

  /** The settings' retry backoff (they are sealed, so built once). */
  private final Backoff retryBackoff;

  Reconciler(
      DataSource dataSource,
      TxmsgStore store,
      TxProducerSettings settings,
      ProducerChannel producer,
      ProducerMetrics metrics,
      ProducerObservations observations,
      InstanceLiveness liveness) {
    this.liveness = liveness;
    this.metrics = metrics;
    this.observations = observations;
    this.journal = new Journal(dataSource, store);
    this.claims = new JournalClaims(dataSource, store, settings.storeId());
    this.settings = settings;
    this.retryBackoff =
        Backoff.exponential(settings.retryBackoffInitial(), settings.retryBackoffMax());
    this.producer = producer;
  }

  /**
   * What one round did, or the batches of one {@link #drain()} together. {@code takenOver}: rows of
   * hung instances of the store that the round's checks made due ({@link
   * TxProducerSettings#instanceStaleAfter}); they are among the claimed rows of this round or the
   * next.
   */
  public record Round(
      int claimed, int republished, int retried, int dead, int tooOld, int takenOver) {}

  /**
   * Runs one round: the round's checks, then one batch of at most {@link
   * TxProducerSettings#reconcileBatchSize()} rows; returns its counts. Never throws for a single
   * row's failure. For operators and tests; the scheduler runs {@link #drain()}.
   *
   * <p>One read of the claimed rows, their sends with up to {@link
   * TxProducerSettings#reconcileConcurrency()} in flight, then one UPDATE recording every accepted
   * send (failures are recorded row by row). The rows of one batch are independent: FIFO rows are
   * claimed at most one per message group (JournalMapper.xml, "inOrder").
   */
  public Round runOnce() throws Exception {
    return run(false);
  }

  /**
   * What the scheduler runs every {@link TxProducerSettings#reconcileInterval()}: the round's
   * checks (repeated once per interval while a drain lasts), then batches back to back for as long
   * as each claims a full batch (a backlog), so that a backlog drains at the send rate rather than
   * one batch per interval. The next batch is claimed and read while the current batch's sends are
   * in flight, and its sends queue behind them, so the sends never wait for the round's statements
   * (docs/architecture.md, "Reconciler"). At most two batches are claimed at once; a later row of a
   * FIFO group stays unclaimed while an earlier one is in flight, as within one batch. Stops
   * between batches once closed. Never throws for a single row's failure; a failed claim of the
   * next batch is thrown after the current batch is recorded.
   */
  public Round drain() throws Exception {
    return run(true);
  }

  private Round run(boolean untilDrained) throws Exception {
    long checkedAt = System.nanoTime();
    Round total = checks();
    Batch current = claimBatch();
    if (current.rows().isEmpty()) {
      return total;
    }
    List<Future<Sent>> inFlight = sendAll(current, untilDrained);
    while (true) {
      Batch next = Batch.NONE;
      Exception claimFailure = null;
      if (untilDrained && current.full() && !closed) {
        try {
          // Both overlap the current batch's sends. A long drain repeats the checks once per
          // interval, so that the gauges and the TOO_OLD ageing do not wait for its end.
          if (System.nanoTime() - checkedAt >= settings.reconcileInterval().toNanos()) {
            checkedAt = System.nanoTime();
            total = add(total, checks());
          }
          next = claimBatch();
        } catch (Exception e) {
          claimFailure = e;
        }
      }
      List<Future<Sent>> nextInFlight = sendAll(next, untilDrained);
      total = add(total, settle(current, await(inFlight)));
      if (claimFailure != null) {
        throw claimFailure;
      }
      if (next.rows().isEmpty()) {
        return total;
      }
      current = next;
      inFlight = nextInFlight;
    }
  }

  /**
   * What a round checks before claiming: RETRY rows too old for consumers to recognise become DEAD;
   * the committed rows of hung instances of the store become due ({@link InstanceLiveness}); the
   * expired leases and the FIFO rows blocked by a DEAD row are counted for the metrics. Returns the
   * first two counts (tooOld, takenOver).
   */
  private Round checks() throws Exception {
    int tooOld = deadTooOld();
    if (tooOld > 0) {
      log.info("reconcile tooOld={}", tooOld);
    }
    int takenOver = 0;
    try {
      takenOver = liveness.takeOverStale();
    } catch (Exception e) {
      // The claim below still runs: the rows stay due at republishAfter as before.
      log.warn("hung-instance takeover failed: {}", e.toString());
    }
    metrics.leaseExpired(journal.countExpiredLeases());
    metrics.journalBlocked(journal.countBlockedByDead());
    return new Round(0, 0, 0, 0, tooOld, takenOver);
  }

  /** Rows one claim leased with its own token; full when the claim hit the batch size. */
  private record Batch(String token, List<JournalRow> rows, boolean full) {
    static final Batch NONE = new Batch(null, List.of(), false);

    int claimed() {
      return rows.size();
    }
  }

  private Batch claimBatch() throws Exception {
    String token = UUID.randomUUID().toString();
    List<JournalRow> rows = claim(token);
    if (rows.isEmpty()) {
      return Batch.NONE;
    }
    return new Batch(token, rows, rows.size() >= settings.reconcileBatchSize());
  }

  /** Records one batch's sends: the accepted ones in one UPDATE, each failure on its row. */
  private Round settle(Batch batch, List<Sent> sent) {
    Map<String, String> accepted = new LinkedHashMap<>();
    int retried = 0;
    int dead = 0;
    for (Sent x : sent) {
      if (x.failure() == null) {
        accepted.put(x.row().getEventId(), x.messageId());
      } else {
        switch (recordFailure(x.row(), batch.token(), x.failure())) {
          case RETRY -> retried++;
          case DEAD -> dead++;
          default -> {}
        }
      }
    }
    record(accepted, batch.token());
    int republished = accepted.size(); // sends accepted; record() logs rows settled meanwhile
    log.info(
        "reconcile claimed={} republished={} retry={} dead={}",
        batch.claimed(),
        republished,
        retried,
        dead);
    return new Round(batch.claimed(), republished, retried, dead, 0, 0);
  }

  private static Round add(Round a, Round b) {
    return new Round(
        a.claimed() + b.claimed(),
        a.republished() + b.republished(),
        a.retried() + b.retried(),
        a.dead() + b.dead(),
        a.tooOld() + b.tooOld(),
        a.takenOver() + b.takenOver());
  }

  /** One row's send: the message id, or the failure to record. */
  private record Sent(JournalRow row, String messageId, PublishException failure) {}

  /**
   * Starts the batch's sends, at most reconcileConcurrency in flight (sends of a batch started
   * earlier go first); in the rows' order. Sends on the caller's thread, one at a time, once
   * closed, for a single row outside a drain, and for reconcileConcurrency 1 outside a drain (a
   * drain uses the send thread so that its next claim overlaps).
   */
  private List<Future<Sent>> sendAll(Batch batch, boolean untilDrained) {
    List<JournalRow> rows = batch.rows();
    List<Future<Sent>> out = new ArrayList<>(rows.size());
    boolean serial =
        closed || (!untilDrained && (rows.size() <= 1 || settings.reconcileConcurrency() == 1));
    for (JournalRow row : rows) {
      out.add(
          serial
              ? CompletableFuture.completedFuture(send(row))
              : senders().submit(() -> send(row)));
    }
    return out;
  }

  /**
   * Waits for the sends; a failure other than a PublishException is thrown as the serial path
   * would.
   */
  private static List<Sent> await(List<Future<Sent>> inFlight) throws InterruptedException {
    List<Sent> out = new ArrayList<>(inFlight.size());
    for (Future<Sent> f : inFlight) {
      try {
        out.add(f.get());
      } catch (ExecutionException e) {
        // Not a PublishException (those are results): a bug or an Error.
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(cause);
      }
    }
    return out;
  }

  /** Publishes one claimed row, byte-identically, the way its row records. */
  private Sent send(JournalRow row) {
    String eventId = row.getEventId();
    // The row's stored trace context makes this send a child of the execute that committed it.
    try (ProducerObservations.Observed observed =
        observations.publish(
            row.getDestination(), row.getEventType(), eventId, "republish", row.headerMap())) {
      try {
        String messageId = publish(row);
        observed.outcome(ProducerMetrics.SENT);
        metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.SENT);
        return new Sent(row, messageId, null);
      } catch (PublishException p) {
        observed.outcome(p.retryable() ? ProducerMetrics.RETRY : ProducerMetrics.DEAD);
        observed.error(p);
        return new Sent(row, null, p);
      } catch (RuntimeException | Error e) {
        observed.error(e);
        throw e;
      }
    }
  }

  private String publish(JournalRow row) {
    // A CDC row the relay did not record SENT in time goes out as the relay would have sent it.
    if (row.getPublishMode() == PublishMode.SEND || row.getPublishMode() == PublishMode.CDC) {
      return producer.send(EnvelopeCodec.encode(row));
    }
    // A TRANSACTION topic refuses a plain send: a half message committed at once.
    HalfMessage half = producer.sendHalf(EnvelopeCodec.encode(row));
    // Under BROKER_ACK anything but SUCCESS throws and the row is retried, never recorded SENT.
    HalfCommit.commit(half, settings.confirmation());
    return half.messageId();
  }

  /**
   * Records the accepted sends in one UPDATE, only for rows the token still owns; returns the rows
   * it updated, or -1 when the UPDATE failed (sent but not recorded: the leases expire and the rows
   * are republished, harmless duplicates). A row not updated was confirmed meanwhile (the confirm
   * group may see the message before this UPDATE: the row is SENT and keeps its earlier message id)
   * or its lease was taken over (the new owner records it).
   */
  private int record(Map<String, String> accepted, String token) {
    if (accepted.isEmpty()) {
      return 0;
    }
    accepted.forEach(
        (eventId, messageId) -> {
          metrics.republished();
          log.info("republished eventId={} messageId={}", eventId, messageId);
        });
    try {
      int n =
          settings.confirmation().onBrokerAck()
              ? journal.republishedSent(accepted, token)
              : journal.republished(accepted, token, settings.republishAfter().toMillis());
      if (n < accepted.size()) {
        log.debug(
            "{} of {} republished rows were confirmed or taken over before they were recorded",
            accepted.size() - n,
            accepted.size());
      }
      return n;
    } catch (Exception dbError) {
      log.warn("republish of {} rows not recorded: {}", accepted.size(), dbError.toString());
      return -1;
    }
  }

  /** The reconciler's send threads, made on first use: daemon threads, one per send in flight. */
  private ExecutorService senders() {
    ExecutorService s = senders;
    if (s == null) {
      synchronized (this) {
        s = senders;
        if (s == null) {
          AtomicInteger n = new AtomicInteger();
          s =
              Executors.newFixedThreadPool(
                  settings.reconcileConcurrency(),
                  r -> {
                    Thread t =
                        new Thread(
                            r, "txmsg-republish-" + settings.storeId() + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                  });
          senders = s;
        }
      }
    }
    return s;
  }

  /** Stops the send threads (a round in progress is interrupted; its rows' leases expire). */
  void close() {
    closed = true; // a round run by hand afterwards (operators, tests) sends one at a time
    ExecutorService s = senders;
    if (s != null) {
      s.shutdownNow();
    }
  }

  enum Result {
    REPUBLISHED,
    RETRY,
    DEAD,
    LOST_LEASE
  }

  List<JournalRow> claim(String token) throws Exception {
    return claims.claimDue(
        token, settings.leaseDuration().toMillis(), settings.reconcileBatchSize());
  }

  /**
   * Publishes one row this caller claimed with {@code token} (a round's claim or the give-up
   * drain's), from the journal, and records the outcome while the token still matches.
   */
  Result republish(String eventId, String token) {
    JournalRow row;
    try {
      row = journal.find(eventId);
    } catch (Exception e) {
      log.warn("reconcile read failed eventId={}: {}", eventId, e.toString());
      return Result.LOST_LEASE; // the lease expires and another round takes it over
    }
    if (row == null || !token.equals(row.getOwnerToken())) {
      return Result.LOST_LEASE;
    }
    Sent sent = send(row);
    if (sent.failure() != null) {
      return recordFailure(row, token, sent.failure());
    }
    return record(Map.of(eventId, sent.messageId()), token) == 1
        ? Result.REPUBLISHED
        : Result.LOST_LEASE;
  }

  private Result recordFailure(JournalRow row, String token, PublishException p) {
    String eventId = row.getEventId();
    try {
      if (p.retryable()) {
        long delay = backoffMillis(row.getRetryCount());
        journal.retry(eventId, token, delay, p.errorCode(), truncate(p.getMessage()));
        log.warn("republish failed eventId={} code={} retryInMs={}", eventId, p.errorCode(), delay);
        metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.RETRY);
        return Result.RETRY;
      }
      journal.dead(eventId, token, p.errorCode(), truncate(p.getMessage()));
      log.error(
          "republish failed permanently eventId={} code={} status=DEAD", eventId, p.errorCode());
      metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.DEAD);
      return Result.DEAD;
    } catch (Exception dbError) {
      log.warn(
          "could not record the republish failure eventId={}: {}", eventId, dbError.toString());
      return Result.LOST_LEASE;
    }
  }

  long backoffMillis(int retryCount) {
    // retryCount failures so far, this one included as retryCount + 1: initial × 2^retryCount.
    return retryBackoff.millis(retryCount + 1);
  }

  private int deadTooOld() throws Exception {
    long maxAge = settings.consumeLogRetention().toMillis() * 9 / 10;
    return journal.deadTooOld(settings.storeId(), maxAge);
  }

  private static String truncate(String s) {
    return s == null || s.length() <= 1000 ? s : s.substring(0, 1000);
  }
}
