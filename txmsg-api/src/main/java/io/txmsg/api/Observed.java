package io.txmsg.api;

/**
 * One started observation of the producer or the consumer (a span when a tracing bridge is
 * present), in scope (the current one) until {@link #close()}. The producer's and the consumer's
 * observation interfaces hand these out; every method does nothing by default, which is the
 * behaviour when nothing observes. Implementations must not throw.
 */
public interface Observed extends AutoCloseable {
  /** The low-cardinality {@code txmsg.outcome} tag; the last call wins. */
  default void outcome(String outcome) {}

  /** Records the failure that ended the observed call. */
  default void error(Throwable error) {}

  /** Closes the scope and stops the observation; never throws. */
  @Override
  default void close() {}
}
