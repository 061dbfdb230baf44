package io.txmsg.api;

/**
 * The application's database work that makes the event true, run inside the local transaction that
 * also writes the journal row.
 *
 * <p>Use {@link TxContext#connection()} (or, with Spring, any MyBatis mapper or JdbcTemplate on the
 * same DataSource: they join the transaction). Do not commit, roll back or close the connection.
 * Throwing rolls everything back and the event is never delivered. A statement that fails on the
 * transaction's connection fails the execute even when the action catches it ({@link
 * TransactionRolledBackException}), on every database alike, unless a savepoint rollback recovered
 * it or the action declared it with {@link TxContext#ignoreFailedStatements}. A transaction the
 * database discarded by itself is caught by a last self-check: the framework never reports success
 * for a transaction the database did not commit.
 *
 * @param <R> the action's result, handed back by {@link TxMessageTemplate#execute}
 */
@FunctionalInterface
public interface TransactionalBusinessAction<R> {
  R execute(TxContext context) throws Exception;
}
