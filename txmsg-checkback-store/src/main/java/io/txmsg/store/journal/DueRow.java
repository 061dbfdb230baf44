package io.txmsg.store.journal;

/**
 * A due journal row as the reconciler's candidate query returns it: enough to claim it and to keep
 * a second row of the same FIFO message group out of one batch.
 */
final class DueRow {
  private String eventId;
  private String messageGroup;

  public String getEventId() {
    return eventId;
  }

  public void setEventId(String eventId) {
    this.eventId = eventId;
  }

  /** The FIFO message group, or null for a row that is not FIFO. */
  public String getMessageGroup() {
    return messageGroup;
  }

  public void setMessageGroup(String messageGroup) {
    this.messageGroup = messageGroup;
  }
}
