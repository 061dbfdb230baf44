/**
 * Local transactions through Spring's {@code PlatformTransactionManager} ({@link
 * io.txmsg.store.spring.SpringLocalTransactions}), so that the application's MyBatis mappers and
 * JdbcTemplate calls join txmsg's transaction. The only package of the store that imports Spring.
 */
package io.txmsg.store.spring;
