package io.txmsg.store.ops;

/** Number of journal rows for one (status, destination) pair. */
public class JournalCount {
  private String status;
  private String destination;
  private long count;

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
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
