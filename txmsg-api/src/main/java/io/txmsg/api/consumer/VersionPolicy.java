package io.txmsg.api.consumer;

/** How the version guard compares an event's aggregate version with the last applied one. */
public enum VersionPolicy {
  /** Apply when newer than the last applied version; older or equal is skipped as stale. */
  MONOTONIC,
  /**
   * Apply only the next version (last + 1); a gap is retried by redelivery, then handled by the
   * {@link GapPolicy}. Only meaningful when the group receives every event of the aggregate.
   */
  CONTIGUOUS
}
