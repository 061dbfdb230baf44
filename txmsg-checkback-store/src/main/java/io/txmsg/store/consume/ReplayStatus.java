package io.txmsg.store.consume;

/** {@code replay_audit.status}: the state of a replay request. Stored by name. */
public enum ReplayStatus {
  /** Recorded by the CLI; waits for a consumer of the group to claim it. */
  REQUESTED,
  /** Claimed by a consumer's replay worker. */
  RUNNING,
  /**
   * Every selected row was replayed or released (or nothing was selected, or a journal re-queue).
   */
  DONE,
  /** Stopped early: canary failure, failure ratio, or taken over by an operator. */
  STOPPED,
  /** A dry run: nothing was changed. */
  DRY_RUN
}
