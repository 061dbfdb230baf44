/**
 * Read-only queries for operators ({@link io.txmsg.store.ops.OpsQueries}: the CLI's listings and
 * traces, the health indicator's backlog), with their filters and result rows. Nothing here writes.
 */
package io.txmsg.store.ops;
