package io.txmsg.store.cdc;

/** How many replication slots a PostgreSQL server has and allows. */
public class SlotCapacity {
  private int used;
  private int max;

  public int getUsed() {
    return used;
  }

  public void setUsed(int used) {
    this.used = used;
  }

  public int getMax() {
    return max;
  }

  public void setMax(int max) {
    this.max = max;
  }
}
