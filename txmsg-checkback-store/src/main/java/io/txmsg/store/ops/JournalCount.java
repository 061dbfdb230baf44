package io.txmsg.store.ops;

import io.txmsg.store.journal.JournalStatus;

/** Number of journal rows for one (status, destination) pair. */
public class JournalCount {
  private JournalStatus status;
  private String destination;
  private long count;

  public JournalStatus getStatus() {
    return status;
  }

  public void setStatus(JournalStatus status) {
    this.status = status;
  }

  public String getDestination() {
    return destination;
  }

  public void setDestination(String destination) {
    this.destination = destination;
  }

  public long getCount() {
    return count;
  }

  public void setCount(long count) {
    this.count = count;
  }
}
