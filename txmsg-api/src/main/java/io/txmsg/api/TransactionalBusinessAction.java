package io.txmsg.api;

/**
 * The application's database work that makes the event true, run inside the local transaction that
 * also writes the journal row.
 *
 * <p>Use {@link TxContext#connection()} (or, with Spring, any MyBatis mapper or JdbcTemplate on the
 * same DataSource: they join the transaction). Do not commit, roll back or close the connection.
 * Throwing rolls everything back and the event is never delivered. Swallowing a failed statement is
 * detected (PostgreSQL aborts the transaction, MariaDB may roll it back silently) and treated like
 * a throw: the framework never reports success for a transaction the database did not commit.
 *
 * @param <R> the action's result, handed back by {@link TxMessageTemplate#execute}
 */
@FunctionalInterface
public interface TransactionalBusinessAction<R> {
  R execute(TxContext context) throws Exception;
}
