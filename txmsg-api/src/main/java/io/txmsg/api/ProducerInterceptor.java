package io.txmsg.api;

/**
 * Observation and fault-injection points of the producer, for tests, demos and chaos drills. All
 * methods default to doing nothing; production code normally registers none.
 */
public interface ProducerInterceptor {
  /** The half message was accepted; the local transaction has not started yet. */
  default void afterHalfMessageSent(TxMessage message, String attemptId) {}

  /** Inside the local transaction, after the journal insert and before the business action. */
  default void beforeAction(TxMessage message, String attemptId) {}

  /**
   * The local transaction committed. Returning false skips the half-message commit, which is
   * exactly what a producer dying at this point does: the check-back (or the reconciler) then has
   * to deliver the event.
   */
  default boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
    return true;
  }
}
