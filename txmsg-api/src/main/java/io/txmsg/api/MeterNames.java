package io.txmsg.api;

/**
 * The names of every meter and observation txmsg records, in one place (docs/architecture.md,
 * "Metrics" and "Tracing"). They are part of the public contract: dashboards and alerts are built
 * on them, so a name here never changes. Tags are bounded (group, destination, event type, result,
 * outcome, reason, resolution): never an eventId or a business key.
 */
public final class MeterNames {
  private MeterNames() {}

  // Producer meters.

  /** Counter: first sends and republishes by destination, event_type, result. */
  public static final String SEND = "txmsg.send";

  /** Counter: check-back answers by resolution and reason. */
  public static final String CHECKBACK = "txmsg.checkback";

  /** Timer: the time to answer one broker check-back. */
  public static final String CHECKBACK_LATENCY = "txmsg.checkback.latency";

  /** Counter: journal rows the reconciler published again. */
  public static final String RECONCILE_REPUBLISHED = "txmsg.reconcile.republished";

  /** Counter: SENDING rows found with an expired lease and taken over. */
  public static final String LEASE_EXPIRED = "txmsg.lease.expired";

  /**
   * Counter (rows): committed rows of a hung producer instance of the store (no heartbeat for
   * instanceStaleAfter) that this instance's reconciler took over and republished.
   */
  public static final String INSTANCE_TAKEOVER = "txmsg.instance.takeover";

  /** Counter: half messages the broker stopped checking, by what the give-up drain did. */
  public static final String GIVEUP = "txmsg.giveup";

  /** Gauge by destination: journal rows not yet confirmed delivered. */
  public static final String JOURNAL_PENDING = "txmsg.journal.pending";

  /** Gauge by destination: the age in seconds of the oldest unconfirmed journal row. */
  public static final String JOURNAL_OLDEST_AGE = "txmsg.journal.oldest.age";

  /** Gauge: unsent FIFO rows held back by a DEAD lower version of their aggregate. */
  public static final String JOURNAL_BLOCKED = "txmsg.journal.blocked";

  // Consumer meters.

  /** Counter: deliveries by group, event_type, outcome. */
  public static final String CONSUME = "txmsg.consume";

  /** Timer by group: the time to process one delivery. */
  public static final String CONSUME_LATENCY = "txmsg.consume.latency";

  /** Timer by group: now minus the event's commit time at delivery. */
  public static final String CONSUME_AGE = "txmsg.consume.age";

  /** Counter by group: deliveries held back by a version gap. */
  public static final String VERSION_GAP = "txmsg.version.gap";

  /** Counter: replayed dead letters by result. */
  public static final String REPLAY = "txmsg.replay";

  // Observations (spans): the producer's three and the consumer's one.

  /** Observation around one {@code execute}; its context travels with the event. */
  public static final String OBSERVE_EXECUTE = "txmsg.execute";

  /** Observation around one send of a committed journal row. */
  public static final String OBSERVE_PUBLISH = "txmsg.publish";

  /** Observation around one check-back answer. */
  public static final String OBSERVE_CHECKBACK = "txmsg.checkback";

  /** Observation around one delivery or replay of an event to its handler. */
  public static final String OBSERVE_CONSUME = "txmsg.consume";

  /** The low-cardinality tag every observation ends with: how the observed call ended. */
  public static final String TAG_OUTCOME = "txmsg.outcome";
}
