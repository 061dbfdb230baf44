package io.txmsg.api;

/**
 * Observation and fault-injection points of the producer, for tests, demos and chaos drills. All
 * methods default to doing nothing; production code normally registers none.
 *
 * <p>Each hook sits at one point of {@code TxMessageTemplate.execute} (docs/architecture.md,
 * "Producer: execute", steps 3, 4 and 8), so each simulates one kind of crash:
 *
 * <table>
 *   <caption>hook, where it runs, what it simulates</caption>
 *   <tr><th>hook</th><th>runs</th><th>simulates</th></tr>
 *   <tr><td>{@link #afterHalfMessageSent}</td><td>after the broker accepted the half message,
 *       before the local transaction starts</td><td>throwing or blocking here: a producer that
 *       dies (or stalls) after the half message and before the local transaction. No attempt
 *       row exists, so the check-back fences the attempt (FENCED, ROLLBACK); a stalled call that
 *       resumes later fails with {@link AttemptFencedException}</td></tr>
 *   <tr><td>{@link #beforeAction}</td><td>inside the local transaction, after the attempt and
 *       journal inserts, before the business action</td><td>throwing: a failure inside the
 *       transaction (rolled back, attempt recorded ROLLED_BACK, half message rolled back);
 *       blocking: a slow transaction, whose check-backs must answer UNKNOWN while it holds the
 *       attempt key</td></tr>
 *   <tr><td>{@link #beforeHalfMessageCommit}</td><td>after the local transaction committed,
 *       before the half message is committed</td><td>returning false: a producer that dies after
 *       the local commit and before the half-message commit; the check-back (or the reconciler)
 *       must deliver the event</td></tr>
 *   <tr><td>{@link #beforeSend}</td><td>after the local transaction committed, before the
 *       immediate send of a row sent OUTBOX-style (an OUTBOX producer's event, every {@link
 *       TxContext#publish} event)</td><td>returning false: a producer that dies after the local
 *       commit and before the send; the reconciler must send the row after {@code
 *       publishAfter}</td></tr>
 * </table>
 */
public interface ProducerInterceptor {
  /**
   * The half message was accepted; the local transaction has not started yet. Throw (or block) here
   * to simulate a crash (or stall) between the half message and the local transaction.
   */
  default void afterHalfMessageSent(TxMessage message, String attemptId) {}

  /**
   * Inside the local transaction, after the attempt and journal inserts and before the business
   * action. Throw here to fail the transaction; block to hold it open while check-backs arrive.
   */
  default void beforeAction(TxMessage message, String attemptId) {}

  /**
   * The local transaction committed. Returning false skips the half-message commit, which is
   * exactly what a producer dying at this point does (after the local commit, before the
   * half-message commit): the check-back (or the reconciler) then has to deliver the event, and
   * {@link TxResult#brokerAcknowledged()} is false.
   */
  default boolean beforeHalfMessageCommit(TxMessage message, String attemptId) {
    return true;
  }

  /**
   * The local transaction committed; {@code message} is about to be sent OUTBOX-style (a plain or
   * FIFO send). Returning false skips that send, which is what a producer dying at this point does:
   * the reconciler then sends the row after {@code publishAfter}.
   */
  default boolean beforeSend(TxMessage message, String attemptId) {
    return true;
  }
}
