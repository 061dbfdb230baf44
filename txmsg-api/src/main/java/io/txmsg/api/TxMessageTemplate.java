package io.txmsg.api;

/**
 * Commits a business fact and its event atomically: half message, local transaction (attempt row,
 * journal row, the action, a self-check), then the half-message commit.
 *
 * <p>Contract of {@link #execute}:
 *
 * <ul>
 *   <li>Returns normally: the fact and the journal row are committed (or were already, see {@link
 *       TxResult#alreadyCommitted()}); the event WILL be delivered at least once: by the commit,
 *       the broker's check-back or the reconciler.
 *   <li>{@link InvalidTxMessageException}: nothing was sent or written.
 *   <li>{@link PublishException}: the half message was not sent; the action did not run.
 *   <li>the action's unchecked exception, or {@link BusinessActionException}: rolled back; nothing
 *       is delivered.
 *   <li>{@link AttemptFencedException}: a check-back fenced this attempt; rolled back.
 *   <li>{@link EventIdConflictException}: the eventId belongs to another event; rolled back.
 *   <li>{@link OutcomeUnknownException}: it may or may not have committed; the check-back decides
 *       from the database and delivers exactly when it committed. Retrying with the same eventId is
 *       safe.
 * </ul>
 */
public interface TxMessageTemplate {
  <R> TxResult<R> execute(TxMessage message, TransactionalBusinessAction<R> action);
}
