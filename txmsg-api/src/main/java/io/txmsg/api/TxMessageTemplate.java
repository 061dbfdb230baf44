package io.txmsg.api;

/**
 * Commits a business fact and its event atomically. In {@link DeliveryMode#HALF_MESSAGE} (the
 * default): a half message to a TRANSACTION topic, the local transaction (attempt row, journal row,
 * the action, a self-check), then the half-message commit. In {@link DeliveryMode#OUTBOX}: the
 * local transaction (journal row, the action, a self-check), then one plain or FIFO send to a
 * NORMAL or FIFO topic; nothing is sent before the commit. ({@link TxMessage.Builder#topic} says
 * which topic each use needs.)
 *
 * <p>Contract of {@link #execute}: every outcome is one of four, told apart by type.
 *
 * <ul>
 *   <li><b>Committed</b> — returns normally: the fact and the journal row are committed (or were
 *       already: {@link TxResult#alreadyCommitted()}); the event WILL be delivered at least once:
 *       by the commit, the broker's check-back or the reconciler.
 *   <li><b>Rejected before any side effect</b> — {@link InvalidTxMessageException} (its {@link
 *       InvalidTxMessageException#field() field} names what is wrong) or {@link
 *       ActiveTransactionException} (called inside the caller's transaction): nothing was sent or
 *       written.
 *   <li><b>Did not commit</b> — a {@link NotCommittedException}: nothing is committed and nothing
 *       will be delivered; retrying the command with the same eventId is safe:
 *       <ul>
 *         <li>{@link PublishException} (HALF_MESSAGE only): the half message was not sent; the
 *             action did not run ({@link PublishException#retryable()} tells whether a retry may
 *             help);
 *         <li>{@link TransactionRolledBackException}: a statement failed inside the action (even
 *             one the action caught), the database discarded the transaction, txmsg's own journal
 *             statement failed, the local transaction timeout passed, or commit() failed and the
 *             attempt was proved not committed;
 *         <li>{@link AttemptFencedException}: a check-back fenced this attempt;
 *         <li>{@link EventIdConflictException}: the eventId belongs to another event;
 *         <li>{@link BusinessActionException}: the action threw a checked exception (its cause).
 *       </ul>
 *       The action's own unchecked exceptions are rethrown unchanged, after the same rollback.
 *   <li><b>Outcome unknown</b> — {@link OutcomeUnknownException}: it may or may not have committed.
 *       In HALF_MESSAGE the check-back decides from the database and delivers exactly when it
 *       committed; in OUTBOX nothing was sent, and a retry with the same eventId settles it
 *       (already committed, or it commits now). Retrying with the same eventId is safe.
 * </ul>
 *
 * <p>The cause of each exception carries what the database or broker reported.
 */
public interface TxMessageTemplate {
  <R> TxResult<R> execute(TxMessage message, TransactionalBusinessAction<R> action);

  /**
   * Publishes events as part of the caller's active Spring transaction (e.g. inside a
   * {@code @Transactional} method with JdbcTemplate, MyBatis or JPA): each event's journal row (and
   * in HALF_MESSAGE mode its attempt row, written before its half message is sent) is written on
   * the connection bound to that transaction, so the events exist exactly when the caller's
   * transaction commits. After the commit each event goes out (the half message is committed, or a
   * plain/FIFO send is made; the reconciler and the check-back finish what that did not); after a
   * rollback nothing is delivered. Unlike {@link #execute}, txmsg does not own the transaction: the
   * caller's commit is the outcome.
   *
   * <p>Contract:
   *
   * <ul>
   *   <li>Returns normally: the rows are written in the caller's transaction; they commit with it.
   *   <li>{@link InvalidTxMessageException} (the field named) or {@link
   *       TransactionNotJoinableException} (no active transaction: it is MANDATORY; synchronization
   *       not active; read-only; JTA, another DataSource, or no bound JDBC connection; auto-commit
   *       on): thrown before any write or send; the caller's transaction is untouched.
   *   <li>{@link EventAlreadyCommittedException}: an earlier call committed this eventId with the
   *       same payload: nothing new is published; the caller may still commit the rest.
   *   <li>Any other exception ({@link PublishException} when the half message could not be sent,
   *       {@link EventIdConflictException} when the eventId belongs to another event, {@link
   *       TransactionRolledBackException} when a txmsg statement failed): the transaction is
   *       doomed. Even when the caller catches it, the commit throws (a pre-commit check of every
   *       publish of the transaction fails it) and nothing is delivered.
   * </ul>
   *
   * At commit, the pre-commit check runs last among the transaction's before-commit callbacks and
   * fails the commit when the database discarded the transaction (PostgreSQL after a failed
   * statement, MariaDB after a deadlock) or a savepoint (NESTED) was rolled back over a publish's
   * rows. A NESTED scope that published must therefore never be rolled back alone. Keep the
   * transaction short in HALF_MESSAGE mode: the broker asks about the half message while it is open
   * (answered UNKNOWN until it ends).
   *
   * @throws TransactionNotJoinableException also when Spring (spring-tx, spring-jdbc) is not on the
   *     class path
   */
  void publish(TxMessage... messages);
}
