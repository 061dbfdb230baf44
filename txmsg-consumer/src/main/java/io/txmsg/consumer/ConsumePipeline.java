package io.txmsg.consumer;

import io.txmsg.api.LogSafe;
import io.txmsg.api.PayloadSerializer;
import io.txmsg.api.consumer.ConsumeListener;
import io.txmsg.api.consumer.ConsumeOutcome;
import io.txmsg.api.consumer.GapPolicy;
import io.txmsg.api.consumer.VersionPolicy;
import io.txmsg.store.consume.Commands;
import io.txmsg.store.consume.ConsumeLog;
import io.txmsg.store.consume.ConsumeStatus;
import io.txmsg.store.consume.DeadLetters;
import io.txmsg.store.consume.ParkReason;
import io.txmsg.store.tx.LocalTransactions;
import io.txmsg.store.tx.LocalTransactions.CommitFailedException;
import io.txmsg.store.tx.LocalTransactions.WorkFailedException;
import io.txmsg.store.tx.StatementFailures;
import io.txmsg.transport.IncomingEvent;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consume path, per event: decode (done by the caller), age check, payload decoding, the
 * version row, then ONE local transaction holding the consume-log claim, the version guard, the
 * handler's writes and its commands; failures are classified and either retried by the broker or
 * parked. Replays run the same path with a PARKED → PROCESSING claim instead of the INSERT.
 */
final class ConsumePipeline {
  private static final Logger log = LoggerFactory.getLogger(ConsumePipeline.class);

  /** One registered handler with its concurrency limit. */
  record Route(HandlerDefinition<?> definition, Semaphore permits) {
    static Route of(HandlerDefinition<?> d) {
      return new Route(d, d.concurrency() > 0 ? new Semaphore(d.concurrency()) : null);
    }
  }

  private enum Step {
    APPLIED,
    STALE
  }

  private final ConsumeLog consumeLog;
  private final DeadLetters deadLetters;
  private final Commands commands;
  private final LocalTransactions transactions;
  private final int claimIsolation;
  private final PayloadSerializer serializer;
  private final Parking parking;
  private final Duration maxEventAge;
  private final Runnable commandsRecorded;
  private final ConsumerMetrics metrics;
  private final ConsumerObservations observations;
  private final Map<String, Long> gapFirstSeen = new ConcurrentHashMap<>();

  private final VersionGuard versionGuard;

  ConsumePipeline(
      ConsumerTables tables,
      LocalTransactions transactions,
      int claimIsolation,
      PayloadSerializer serializer,
      Duration maxEventAge,
      Runnable commandsRecorded,
      ConsumerMetrics metrics,
      ConsumeListener listener,
      ConsumerObservations observations) {
    this.metrics = metrics;
    this.observations = observations;
    this.consumeLog = tables.consumeLog();
    this.deadLetters = tables.deadLetters();
    this.commands = tables.commands();
    this.transactions = transactions;
    this.claimIsolation = claimIsolation;
    this.serializer = serializer;
    this.parking = new Parking(consumeLog, deadLetters, listener);
    this.versionGuard = new VersionGuard(tables.versions());
    this.maxEventAge = maxEventAge;
    this.commandsRecorded = commandsRecorded;
  }

  Parking parking() {
    return parking;
  }

  /**
   * A broker delivery.
   *
   * @param parkAt the delivery attempt at which a still-failing event is parked instead of retried:
   *     min(handler maxAttempts, the group's broker-side max attempts)
   */
  ConsumeOutcome deliver(String group, IncomingEvent e, Route route, int parkAt) {
    try (ConsumerObservations.Observed observed = observe(group, e, false)) {
      try {
        ConsumeOutcome outcome = deliverObserved(group, e, route, parkAt);
        observed.outcome(outcome.name().toLowerCase(Locale.ROOT));
        return outcome;
      } catch (RuntimeException | Error ex) {
        observed.error(ex);
        throw ex;
      }
    }
  }

  /**
   * {@code txmsg.consume} around everything the delivery does, the handler call included; its
   * parent is the trace context the event carries in its headers.
   */
  private ConsumerObservations.Observed observe(String group, IncomingEvent e, boolean replay) {
    return observations.consume(group, e.topic(), e.eventType(), e.eventId(), replay, e.headers());
  }

  private ConsumeOutcome deliverObserved(String group, IncomingEvent e, Route route, int parkAt) {
    if (e.originTime().isBefore(Instant.now().minus(maxEventAge))) {
      return parking.park(
          group,
          e,
          ParkReason.TOO_OLD,
          null,
          "born "
              + e.originTime()
              + ", older than the consume-log retention minus margin ("
              + maxEventAge
              + "): a duplicate could no longer be recognised");
    }
    Object payload;
    try {
      payload = decodePayload(e, route);
    } catch (PayloadDecodingException ex) {
      return parking.park(group, e, ParkReason.UNDECODABLE_PAYLOAD, ex, null);
    }
    return apply(group, e, route, payload, parkAt, null, false);
  }

  private Object decodePayload(IncomingEvent e, Route route) {
    try {
      return serializer.deserialize(e.payload(), route.definition().payloadType());
    } catch (RuntimeException ex) {
      throw new PayloadDecodingException(
          "payload is not a valid "
              + route.definition().payloadType().getName()
              + ": "
              + ex.getMessage(),
          ex);
    }
  }

  private ConsumeOutcome apply(
      String group,
      IncomingEvent e,
      Route route,
      Object payload,
      int parkAt,
      String replayId,
      boolean forceMonotonic) {
    HandlerDefinition<?> def = route.definition();
    try {
      if (def.versionGuard()) {
        versionGuard.prepare(group, e.aggregateType(), e.aggregateId());
      }
      Step step =
          transactions.inTransaction(
              c -> inClaimTransaction(c, group, e, route, payload, replayId, forceMonotonic),
              claimIsolation); // READ COMMITTED, or the pool's default when it is that
      if (def.versionGuard()) {
        versionGuard.committed(group, e.aggregateType(), e.aggregateId());
      }

      if (!gapFirstSeen.isEmpty()) { // no key built per message unless a gap is pending
        gapFirstSeen.remove(group + "|" + e.eventId());
      }
      log.debug(
          "{} group={} eventId={} replay={}", step, group, LogSafe.escape(e.eventId()), replayId);
      return step == Step.APPLIED ? ConsumeOutcome.APPLIED : ConsumeOutcome.STALE;
    } catch (WorkFailedException wf) {
      Throwable cause = wf.getCause();
      if (cause instanceof Parking.ClaimTakenException) {
        return replayId != null ? ConsumeOutcome.DUPLICATE : parking.resolveExisting(group, e);
      }
      if (cause instanceof GapException) {
        return onGap(group, e, route, payload, parkAt, replayId);
      }
      return failed(group, e, route, cause, parkAt, replayId);
    } catch (CommitFailedException cf) {
      // The commit may have happened: a redelivery finds the row (duplicate) or applies it.
      return failed(group, e, route, cf.getCause(), parkAt, replayId);
    } catch (Exception ex) {
      return failed(group, e, route, ex, parkAt, replayId);
    }
  }

  private Step inClaimTransaction(
      Connection c,
      String group,
      IncomingEvent e,
      Route route,
      Object payload,
      String replayId,
      boolean forceMonotonic)
      throws Exception {
    HandlerDefinition<?> def = route.definition();
    ConsumeStatus claimed = claim(c, group, e, replayId != null);
    if (def.versionGuard()
        && !versionGuard.apply(
            c,
            group,
            e.aggregateType(),
            e.aggregateId(),
            e.aggregateVersion(),
            e.eventId(),
            def.versionPolicy() == VersionPolicy.CONTIGUOUS && !forceMonotonic)) {
      finish(c, group, e, claimed, ConsumeStatus.SKIPPED_STALE, null);
      markReplayed(c, group, e, replayId);
      return Step.STALE;
    }
    HandlerContext ctx = new HandlerContext(group, e, replayId != null, c, commands);
    StatementFailures failures = StatementFailures.of(c);
    failures.watch();
    invoke(route, payload, ctx);
    Exception swallowed = failures.stop();
    if (swallowed != null) {
      // The handler caught a failed statement: the same outcome on every database (rolled back,
      // then retried or parked), not commit-on-H2 / abort-on-PostgreSQL.
      throw swallowed;
    }
    // The claim row already says SUCCESS. The closing UPDATE is needed to record a replay or a
    // result reference, and otherwise only as the self-check (it fails in a transaction that a
    // swallowed failure aborted): skipped when the detector saw every statement and none failed
    // (docs/architecture.md, "The consume log").
    if (replayId != null || ctx.resultRef() != null || !failures.provedClean()) {
      finish(c, group, e, claimed, ConsumeStatus.SUCCESS, ctx.resultRef());
    }
    markReplayed(c, group, e, replayId);
    if (ctx.recordedCommands()) {
      commandsRecorded.run(); // the dispatcher polls; this only shortens the wait
    }
    return Step.APPLIED;
  }

  /**
   * The INSERT is the claim, written as SUCCESS (the status it commits with unless the version
   * guard finds it stale); a replay flips PARKED → PROCESSING instead. Returns the claim's status.
   */
  private ConsumeStatus claim(Connection c, String group, IncomingEvent e, boolean replay) {
    if (replay) {
      if (!consumeLog.claimParked(c, group, e.eventId())) {
        throw new Parking.ClaimTakenException(); // applied meanwhile, or replayed by another
      }
      return ConsumeStatus.PROCESSING;
    }
    if (!consumeLog.claim(
        c, group, e.eventId(), e.eventType(), e.payloadHash(), e.deliveryAttempt())) {
      throw new Parking.ClaimTakenException();
    }
    return ConsumeStatus.SUCCESS;
  }

  private void finish(
      Connection c,
      String group,
      IncomingEvent e,
      ConsumeStatus claimed,
      ConsumeStatus status,
      String ref) {
    if (!consumeLog.finish(c, group, e.eventId(), claimed, status, ref, e.deliveryAttempt())) {
      throw new IllegalStateException(
          "consume-log row of " + group + "/" + e.eventId() + " is no longer " + claimed);
    }
  }

  private void markReplayed(Connection c, String group, IncomingEvent e, String replayId) {
    if (replayId != null
        && !deadLetters.markReplayed(c, group, e.eventId(), e.payloadHash(), replayId)) {
      throw new IllegalStateException("dead letter of " + group + "/" + e.eventId() + " moved");
    }
  }

  @SuppressWarnings("unchecked")
  private static void invoke(Route route, Object payload, HandlerContext ctx) throws Exception {
    Semaphore permits = route.permits();
    if (permits != null) {
      permits.acquire();
    }
    try {
      ((EventHandler<Object>) route.definition().handler()).handle(payload, ctx);
    } finally {
      if (permits != null) {
        permits.release();
      }
    }
  }

  private ConsumeOutcome onGap(
      String group, IncomingEvent e, Route route, Object payload, int parkAt, String replayId) {
    HandlerDefinition<?> def = route.definition();
    String key = group + "|" + e.eventId();
    long now = System.nanoTime();
    long first = gapFirstSeen.computeIfAbsent(key, k -> now);
    boolean waitedEnough = now - first >= def.maxGapWait().toNanos();
    // Decide before the broker would give up, even if the wait is not over.
    metrics.gap(group);
    if (!waitedEnough && e.deliveryAttempt() < parkAt) {
      log.info(
          "version gap group={} eventId={} aggregate={}/{} version={} (redelivered later)",
          group,
          LogSafe.escape(e.eventId()),
          LogSafe.escape(e.aggregateType()),
          LogSafe.escape(e.aggregateId()),
          e.aggregateVersion());
      return ConsumeOutcome.RETRY;
    }
    gapFirstSeen.remove(key);
    if (def.gapPolicy() == GapPolicy.APPLY) {
      return apply(group, e, route, payload, parkAt, replayId, true);
    }
    return parking.park(
        group,
        e,
        ParkReason.GAP,
        null,
        "aggregate version "
            + e.aggregateVersion()
            + " still has a gap before it after "
            + def.maxGapWait());
  }

  private ConsumeOutcome failed(
      String group, IncomingEvent e, Route route, Throwable cause, int parkAt, String replayId) {
    boolean permanent = FailureClassifier.isPermanent(cause, route.definition().permanent());
    if (replayId != null) {
      throw new ReplayFailedException(cause, permanent);
    }
    if (permanent) {
      return parking.park(group, e, ParkReason.PERMANENT_ERROR, cause, null);
    }
    if (e.deliveryAttempt() >= parkAt) {
      return parking.park(group, e, ParkReason.MAX_ATTEMPTS, cause, null);
    }
    log.info(
        "retry group={} eventId={} attempt={} of {}: {}",
        group,
        LogSafe.escape(e.eventId()),
        e.deliveryAttempt(),
        parkAt,
        cause.toString());
    return ConsumeOutcome.RETRY;
  }

  /** An operator replay of a parked event through the same pipeline. */
  ConsumeOutcome replay(String group, IncomingEvent e, Route route, String replayId) {
    try (ConsumerObservations.Observed observed = observe(group, e, true)) {
      try {
        Object payload = decodePayload(e, route);
        ConsumeOutcome outcome = apply(group, e, route, payload, Integer.MAX_VALUE, replayId, true);
        observed.outcome(outcome.name().toLowerCase(Locale.ROOT));
        return outcome;
      } catch (RuntimeException | Error ex) {
        observed.outcome("failed");
        observed.error(ex instanceof ReplayFailedException f ? f.getCause() : ex);
        throw ex;
      }
    }
  }

  /** The version row vanished (only an operator deletes them): transient, it is recreated. */
  static final class VersionRowMissingException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    VersionRowMissingException(String aggregate) {
      super("aggregate_version row missing for " + aggregate);
    }
  }

  /** A contiguous version guard found a gap: roll back, let the broker redeliver. */
  static final class GapException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GapException(long last) {
      super("last applied version is " + last, null, false, false);
    }
  }

  /** A replay's handler failed; the dead letter stays parked. */
  static final class ReplayFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean permanent;

    ReplayFailedException(Throwable cause, boolean permanent) {
      super(cause);
      this.permanent = permanent;
    }

    boolean permanent() {
      return permanent;
    }
  }
}
