/**
 * The consumer's tables: the consume log whose key is the dedup claim ({@link
 * io.txmsg.store.consume.ConsumeLog}), the version guard's rows ({@link
 * io.txmsg.store.consume.VersionRows}), parked events and conflicts ({@link
 * io.txmsg.store.consume.DeadLetters}), the command outbox ({@link
 * io.txmsg.store.consume.Commands}) and replay requests ({@link
 * io.txmsg.store.consume.ReplayRequests}), with their row types, selectors and status and reason
 * vocabularies.
 */
package io.txmsg.store.consume;
