/**
 * The producer's tables: the attempt rows that fence the half-message protocol ({@link
 * io.txmsg.store.journal.Attempts}), the journal rows that are the idempotency point and the outbox
 * ({@link io.txmsg.store.journal.Journal}), and the reconciler's claims of due rows ({@link
 * io.txmsg.store.journal.JournalClaims}), with their row types and status vocabularies.
 */
package io.txmsg.store.journal;
