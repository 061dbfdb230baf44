/**
 * All durable state of txmsg in the business database. This package holds what every part shares:
 * {@link io.txmsg.store.TxmsgStore} (the MyBatis configuration of one dialect and table prefix),
 * {@link io.txmsg.store.Dialect} (what differs between H2, MariaDB/MySQL and PostgreSQL), the table
 * prefix and the JSON codecs. The operations on the tables live in the sub-packages, each over
 * mappers of its own that nothing outside it sees:
 *
 * <ul>
 *   <li>{@code journal}: the producer's attempt and journal rows;
 *   <li>{@code consume}: the consume log, version rows, dead letters, commands and replay requests;
 *   <li>{@code archive}: moving terminal rows to the archive tables;
 *   <li>{@code ops}: read-only queries for operators;
 *   <li>{@code schema}: schema versions, install and upgrade;
 *   <li>{@code tx}: local transactions, short store transactions, failure detection and SQLStates;
 *   <li>{@code spring}: local transactions through Spring's transaction manager.
 * </ul>
 *
 * <p>An operation takes either the connection of the caller's transaction (each a separate call, so
 * that a caller can run them at different moments of one transaction) or runs in a short
 * transaction of its own.
 */
package io.txmsg.store;
