package io.txmsg.producer;

import io.txmsg.api.PublishException;
import io.txmsg.store.JournalClaims;
import io.txmsg.store.JournalMapper;
import io.txmsg.store.JournalRow;
import io.txmsg.store.PublishMode;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import io.txmsg.transport.EnvelopeCodec;
import io.txmsg.transport.HalfMessage;
import io.txmsg.transport.ProducerChannel;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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
 * HALF_MESSAGE rows, whose topics are TRANSACTION topics; a plain or FIFO send for SEND rows), so a
 * store that switched modes strands nothing, without holding any row lock. FIFO rows are claimed in
 * aggregate-version order only (a lower unsent version of the aggregate, or another row of the
 * group in flight, holds a row back; see JournalMapper.xml "inOrder"). Every later update matches
 * only while the owner token does, so a taken-over lease's late update changes nothing. Several
 * instances may run at once.
 */
public final class Reconciler {
  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

  private final StoreTransactions storeTx;
  private final JournalClaims claims;
  private final TxProducerSettings settings;
  private final ProducerChannel producer;
  private final ProducerMetrics metrics;
  private final ProducerObservations observations;

  Reconciler(
      DataSource dataSource,
      TxmsgStore store,
      TxProducerSettings settings,
      ProducerChannel producer,
      ProducerMetrics metrics,
      ProducerObservations observations) {
    this.metrics = metrics;
    this.observations = observations;
    this.storeTx = new StoreTransactions(dataSource, store);
    this.claims = new JournalClaims(dataSource, store, settings.storeId());
    this.settings = settings;
    this.producer = producer;
  }

  /** What one round did. */
  public record Round(int claimed, int republished, int retried, int dead, int tooOld) {}

  /** Runs one round; returns its counts. Never throws for a single row's failure. */
  public Round runOnce() throws Exception {
    int tooOld = deadTooOld();
    String token = UUID.randomUUID().toString();
    metrics.leaseExpired(inTx(JournalMapper::countExpiredLeases));
    metrics.journalBlocked(inTx(JournalMapper::countBlockedByDead));
    List<String> claimed = claim(token);
    int republished = 0;
    int retried = 0;
    int dead = 0;
    for (String eventId : claimed) {
      switch (republish(eventId, token)) {
        case REPUBLISHED -> republished++;
        case RETRY -> retried++;
        case DEAD -> dead++;
        default -> {}
      }
    }
    if (!claimed.isEmpty() || tooOld > 0) {
      log.info(
          "reconcile claimed={} republished={} retry={} dead={} tooOld={}",
          claimed.size(),
          republished,
          retried,
          dead,
          tooOld);
    }
    return new Round(claimed.size(), republished, retried, dead, tooOld);
  }

  enum Result {
    REPUBLISHED,
    RETRY,
    DEAD,
    LOST_LEASE
  }

  List<String> claim(String token) throws Exception {
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
      row = inTx(m -> m.findById(eventId));
    } catch (Exception e) {
      log.warn("reconcile read failed eventId={}: {}", eventId, e.toString());
      return Result.LOST_LEASE; // the lease expires and another round takes it over
    }
    if (row == null || !token.equals(row.getOwnerToken())) {
      return Result.LOST_LEASE;
    }
    String messageId;
    // The row's stored trace context makes this send a child of the execute that committed it.
    try (ProducerObservations.Observed observed =
        observations.publish(
            row.getDestination(), row.getEventType(), eventId, "republish", row.headerMap())) {
      try {
        if (row.getPublishMode() == PublishMode.SEND) {
          messageId = producer.send(EnvelopeCodec.encode(row));
        } else {
          // A TRANSACTION topic refuses a plain send: a half message committed at once.
          HalfMessage half = producer.sendHalf(EnvelopeCodec.encode(row));
          half.commit();
          messageId = half.messageId();
        }
        observed.outcome(ProducerMetrics.SENT);
      } catch (PublishException p) {
        observed.outcome(p.retryable() ? ProducerMetrics.RETRY : ProducerMetrics.DEAD);
        observed.error(p);
        return recordFailure(row, token, p);
      } catch (RuntimeException | Error e) {
        observed.error(e);
        throw e;
      }
    }
    metrics.republished();
    metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.SENT);
    try {
      int n =
          settings.confirmation().onBrokerAck()
              ? inTx(m -> m.republishedSent(eventId, token, messageId))
              : inTx(
                  m ->
                      m.republished(
                          eventId, token, messageId, settings.republishAfter().toMillis()));
      log.info("republished eventId={} messageId={} updated={}", eventId, messageId, n);
      return n == 1 ? Result.REPUBLISHED : Result.LOST_LEASE;
    } catch (Exception dbError) {
      // Sent but not recorded: the lease expires and the row is republished (a harmless duplicate).
      log.warn("republish of eventId={} not recorded: {}", eventId, dbError.toString());
      return Result.LOST_LEASE;
    }
  }

  private Result recordFailure(JournalRow row, String token, PublishException p) {
    String eventId = row.getEventId();
    try {
      if (p.retryable()) {
        long delay = backoffMillis(row.getRetryCount());
        inTx(m -> m.retry(eventId, token, delay, p.errorCode(), truncate(p.getMessage())));
        log.warn("republish failed eventId={} code={} retryInMs={}", eventId, p.errorCode(), delay);
        metrics.send(row.getDestination(), row.getEventType(), ProducerMetrics.RETRY);
        return Result.RETRY;
      }
      inTx(m -> m.dead(eventId, token, p.errorCode(), truncate(p.getMessage())));
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
    long initial = settings.retryBackoffInitial().toMillis();
    long max = settings.retryBackoffMax().toMillis();
    long base = initial << Math.min(retryCount, 30);
    if (base <= 0 || base > max) {
      base = max;
    }
    double jitter = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
    return Math.max(1, (long) (base * jitter));
  }

  private int deadTooOld() throws Exception {
    long maxAge = settings.consumeLogRetention().toMillis() * 9 / 10;
    return inTx(m -> m.deadTooOld(settings.storeId(), maxAge));
  }

  private static String truncate(String s) {
    return s == null || s.length() <= 1000 ? s : s.substring(0, 1000);
  }

  private <T> T inTx(StoreTransactions.Work<JournalMapper, T> work) throws Exception {
    return storeTx.run(JournalMapper.class, work);
  }
}
