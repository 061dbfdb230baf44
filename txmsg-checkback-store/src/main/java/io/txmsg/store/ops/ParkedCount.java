package io.txmsg.store.ops;

/** Number of PARKED dead letters of one consumer group. */
public class ParkedCount {
  private String consumerGroup;
  private long count;

  public String getConsumerGroup() {
    return consumerGroup;
  }

  public void setConsumerGroup(String consumerGroup) {
    this.consumerGroup = consumerGroup;
  }

  public long getCount() {
    return count;
  }

  public void setCount(long count) {
    this.count = count;
  }
}
