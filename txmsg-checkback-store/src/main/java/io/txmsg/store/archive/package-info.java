/**
 * Moving terminal journal, consume-log and attempt rows older than a retention to their {@code
 * *_archive} twins (or deleting them), in bounded batches, with an audit row per run ({@link
 * io.txmsg.store.archive.Archiver}).
 */
package io.txmsg.store.archive;
