/**
 * Transactions on the business database: the producer's and consumer's local transactions ({@link
 * io.txmsg.store.tx.LocalTransactions}, plain JDBC here), short transactions of the store's own
 * ({@link io.txmsg.store.tx.StoreTransactions}), the detector of failed statements an action or
 * handler swallowed ({@link io.txmsg.store.tx.StatementFailures}), SQLState classification ({@link
 * io.txmsg.store.tx.SqlStates}) and the eviction of broken pooled connections.
 */
package io.txmsg.store.tx;
