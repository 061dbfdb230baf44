package io.txmsg.api;

import java.util.Optional;

/**
 * The outcome of {@link TxMessageTemplate#execute}.
 *
 * <p><b>When there is no value.</b> {@link #value()} is the action's return value only when this
 * call ran the action and saw its transaction commit. It is null:
 *
 * <ul>
 *   <li>for {@link Outcome#ALREADY_COMMITTED} ({@link #alreadyCommitted()} is true): an earlier
 *       attempt committed this eventId with the same payload, so the action was <em>not</em> run
 *       again (its effects in this attempt were rolled back);
 *   <li>for {@link Outcome#COMMITTED_RESULT_LOST}: the database's {@code commit()} call failed but
 *       the transaction turned out to be committed (docs/architecture.md#producer-execute, step 7):
 *       the fact is durable, the action's return value was lost with the failed call;
 *   <li>when the action itself returned null.
 * </ul>
 *
 * {@link #valueIfKnown()} says the same with an {@link Optional}. When the caller needs the result
 * of the business change in every case, it re-derives it from the database, where the committed
 * action left it: read the business row by the event's business key or by the eventId (the action
 * can store {@code ctx.eventId()} or {@code ctx.attemptId()} in its row for exactly this), e.g.
 *
 * <pre>{@code
 * TxResult<Long> r = template.execute(message, ctx -> payments.insert(orderId, ctx.eventId(), ...));
 * long paymentId = r.valueIfKnown().orElseGet(() -> payments.idByEventId(r.eventId()));
 * }</pre>
 *
 * @param outcome {@link Outcome#COMMITTED}: this call committed the fact and the journal row;
 *     {@link Outcome#ALREADY_COMMITTED}: an earlier attempt committed this eventId with the same
 *     payload, the action was not run again and {@code value} is null
 * @param value the action's result; null for ALREADY_COMMITTED and in the cases listed above
 * @param eventId the event
 * @param attemptId this call's attempt (for ALREADY_COMMITTED: the attempt that found the event
 *     committed and was recorded ROLLED_BACK, not the one that committed it)
 * @param brokerAcknowledged whether this call's one send of the primary event after commit was
 *     acknowledged (see {@link #brokerAcknowledged()} for what that means in each delivery mode);
 *     false is not a failure, and true is not delivery
 * @param publishedEventIds the events {@link TxContext#publish} added in the committed call: in
 *     publish order when this call committed; for ALREADY_COMMITTED those of the call that
 *     committed, read from the journal, sorted by eventId; empty when none
 */
public record TxResult<R>(
    Outcome outcome,
    R value,
    String eventId,
    String attemptId,
    boolean brokerAcknowledged,
    java.util.List<String> publishedEventIds) {

  public TxResult {
    publishedEventIds =
        publishedEventIds == null ? java.util.List.of() : java.util.List.copyOf(publishedEventIds);
  }

  /** A result without events of {@link TxContext#publish} (the shape before it existed). */
  public TxResult(
      Outcome outcome, R value, String eventId, String attemptId, boolean brokerAcknowledged) {
    this(outcome, value, eventId, attemptId, brokerAcknowledged, java.util.List.of());
  }

  /**
   * Whether the broker side acknowledged this call's one send of the primary event after the local
   * commit. What that send is, and so what {@code true} proves, depends on the producer's {@link
   * DeliveryMode}:
   *
   * <ul>
   *   <li>{@link DeliveryMode#HALF_MESSAGE}: the commit of the half message was accepted. Over gRPC
   *       the proxy answered the commit request OK; over remoting the client handed the commit
   *       (which the protocol sends oneway) to the broker connection without an error, and the
   *       broker's own answer is never seen. Neither is delivery: the proxy passes the commit on to
   *       the broker without waiting for its result, a oneway request can be lost, and a broker
   *       with asynchronous flush can lose the half message itself. Whether the event arrived is
   *       established by the store's {@link DeliveryConfirmation}; what is not confirmed in time is
   *       republished.
   *   <li>{@link DeliveryMode#OUTBOX}: the immediate send after commit got SEND_OK from the broker
   *       (with {@link DeliveryConfirmation#SEND_OK} the journal row is then recorded SENT, in
   *       batches off the caller's thread). That is acceptance by the broker, not by a consumer,
   *       and a broker with asynchronous flush or replication can still lose the message.
   *   <li>{@link DeliveryMode#CDC}: always {@code false}. Nothing is sent on the caller's thread:
   *       the committed journal row is sent by the CDC relay, which reads it from the database's
   *       log, or by the reconciler once it is {@code cdcFallbackAfter} old and still not SENT.
   * </ul>
   *
   * {@code false} is not a failure: the fact and its journal row are committed, and the event will
   * be delivered by the check-back (HALF_MESSAGE), the CDC relay (CDC) or the reconciler. It is
   * false when the send was not made (a {@link ProducerInterceptor} skipped it; in OUTBOX a FIFO
   * event waits for a lower version of its aggregate), when it failed or its answer was lost, and
   * always for {@link Outcome#ALREADY_COMMITTED} (this call sent nothing).
   *
   * <p>It says nothing about the events of {@link TxContext#publish}: they are sent after this one
   * with plain (or FIFO) sends, and what those sends miss is left to the reconciler; their state is
   * in the journal ({@link #publishedEventIds()} names them).
   */
  @Override
  public boolean brokerAcknowledged() {
    return brokerAcknowledged;
  }

  /**
   * The former name of {@link #brokerAcknowledged()}, which said "half commit" although in OUTBOX
   * mode it reports the SEND_OK of the immediate send.
   *
   * @deprecated use {@link #brokerAcknowledged()}; this delegate goes in the next release
   */
  @Deprecated(forRemoval = true)
  public boolean halfCommitAcknowledged() {
    return brokerAcknowledged;
  }

  /** Every event the committed call wrote: the primary eventId, then {@link #publishedEventIds}. */
  public java.util.List<String> allEventIds() {
    java.util.List<String> all = new java.util.ArrayList<>(publishedEventIds.size() + 1);
    all.add(eventId);
    all.addAll(publishedEventIds);
    return all;
  }

  /** This result with the events of {@link TxContext#publish}. */
  public TxResult<R> withPublished(java.util.List<String> published) {
    return new TxResult<>(outcome, value, eventId, attemptId, brokerAcknowledged, published);
  }

  /** What happened to the fact. */
  public enum Outcome {
    /** This call ran the action and committed the fact and its journal row. */
    COMMITTED,
    /** An earlier attempt had committed this eventId with the same payload; nothing ran now. */
    ALREADY_COMMITTED,
    /**
     * This call ran the action and committed, but {@code commit()} failed on the wire and the
     * attempt row then proved the commit: the action's value is lost.
     */
    COMMITTED_RESULT_LOST
  }

  /** This call committed the fact. */
  public static <R> TxResult<R> ofCommitted(
      R value, String eventId, String attemptId, boolean brokerAcknowledged) {
    return new TxResult<>(Outcome.COMMITTED, value, eventId, attemptId, brokerAcknowledged);
  }

  /** This call committed the fact but the action's value was lost with a failed commit() call. */
  public static <R> TxResult<R> ofCommittedResultLost(
      String eventId, String attemptId, boolean brokerAcknowledged) {
    return new TxResult<>(
        Outcome.COMMITTED_RESULT_LOST, null, eventId, attemptId, brokerAcknowledged);
  }

  /**
   * An earlier attempt committed this eventId with the same payload; there is no value (see the
   * class comment for how to re-derive it).
   */
  public static <R> TxResult<R> ofAlreadyCommitted(String eventId, String attemptId) {
    return new TxResult<>(Outcome.ALREADY_COMMITTED, null, eventId, attemptId, false);
  }

  /**
   * The action's return value, or null: always null when {@link #alreadyCommitted()} (the action
   * did not run in this call), and null when it was lost with a failed {@code commit()} call or the
   * action returned null. Prefer {@link #valueIfKnown()}.
   */
  @Override
  public R value() {
    return value;
  }

  /**
   * The action's return value if this call ran the action and has its result; empty when {@link
   * #alreadyCommitted()}, when the value was lost with a failed {@code commit()} call although the
   * transaction committed, or when the action returned null. The fact is committed in every case.
   */
  public Optional<R> valueIfKnown() {
    return Optional.ofNullable(value);
  }

  /** Whether the commit was proved after a failed commit() call and the action's value is lost. */
  public boolean resultLost() {
    return outcome == Outcome.COMMITTED_RESULT_LOST;
  }

  /**
   * Whether an earlier attempt had committed this eventId (same payload) and the action was not run
   * again: {@link #value()} is null then.
   */
  public boolean alreadyCommitted() {
    return outcome == Outcome.ALREADY_COMMITTED;
  }
}
