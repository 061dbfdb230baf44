package io.txmsg.producer;

/**
 * Where the producer reports what it does; {@link #NONE} by default. The Micrometer implementation
 * ({@link io.txmsg.producer.micrometer.MicrometerProducerMetrics}) records the meters listed in
 * docs/architecture.md ("Metrics"); micrometer-core is an optional dependency, needed only for it.
 * Implementations must be thread-safe and must not throw.
 */
public interface ProducerMetrics {
  /** Records nothing. */
  ProducerMetrics NONE = new ProducerMetrics() {};

  /** Results of {@code txmsg.send}. */
  String SENT = "sent";

  String RETRY = "retry";
  String DEAD = "dead";
  String UNKNOWN = "unknown";

  /** One send outcome: first send (sent/unknown) or republish (sent/retry/dead). */
  default void send(String destination, String eventType, String result) {}

  /**
   * One check-back answer.
   *
   * @param reason found | tombstone | young | fenced | lock_timeout | error
   */
  default void checkback(String resolution, String reason, long nanos) {}

  /** The reconciler published a row again. */
  default void republished() {}

  /**
   * The give-up drain handled a half message the broker stopped checking.
   *
   * @param outcome republished | retry | dead | no_row (never committed) | settled (SENT/DEAD or
   *     leased) | foreign (another store's)
   */
  default void givenUp(String outcome) {}

  /**
   * A live instance took over a hung instance of its store ({@code txmsg.instance.takeover}):
   * {@code rows} committed half-message rows of it became due and are republished by this
   * instance's reconciler.
   */
  default void instanceTakeover(int rows) {}

  /** The reconciler took over {@code n} rows whose lease had expired. */
  default void leaseExpired(int n) {}

  /**
   * True when {@link #journalBacklog} is wanted: the producer then runs one indexed query per gauge
   * interval (never per scrape).
   */
  default boolean wantsJournalBacklog() {
    return false;
  }

  /** The unconfirmed rows of one destination and the age of its oldest, from the last query. */
  default void journalBacklog(String destination, long pendingRows, long oldestAgeSeconds) {}

  /**
   * Unsent FIFO rows held back by a DEAD lower version of their aggregate, from the reconciler's
   * last round ({@code txmsg.journal.blocked}): their aggregate stays blocked until an operator
   * requeues the DEAD row (docs/runbook.md, "FIFO aggregate blocked by a DEAD row").
   */
  default void journalBlocked(long rows) {}
}
