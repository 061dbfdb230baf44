package io.txmsg.store.journal;

/**
 * {@code journal.publish_mode} (schema V2): how a journal row is published and, by the reconciler,
 * republished. Stored by name: the names are part of the schema and never change.
 */
public enum PublishMode {
  /**
   * A half message committed after the local transaction; the broker's check-back resolves it. The
   * only mode before V2, and the column default: a V1 release's inserts and every row written
   * before the upgrade are half messages.
   */
  HALF_MESSAGE,
  /** A plain synchronous send after the local transaction committed (the OUTBOX delivery mode). */
  SEND,
  /**
   * Sent by the CDC relay (module txmsg-cdc), which reads the row's insert from the database's log
   * and sends it as {@link #SEND} would (a plain or FIFO send, byte-identical); nothing is sent
   * after the local transaction. Schema V4: a release before it never writes the value.
   */
  CDC
}
