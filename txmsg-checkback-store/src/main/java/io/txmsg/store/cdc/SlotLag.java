package io.txmsg.store.cdc;

/**
 * A PostgreSQL replication slot's distance from the server's current WAL position: what the relay
 * has not confirmed yet ({@code confirmed_flush_lsn}) and what the server keeps on disk for it
 * ({@code restart_lsn}: WAL that cannot be recycled while the slot exists).
 */
public class SlotLag {
  private String slotName;
  private boolean active;
  private String walStatus;
  private Long unconfirmedBytes;
  private Long retainedBytes;

  public String getSlotName() {
    return slotName;
  }

  public void setSlotName(String slotName) {
    this.slotName = slotName;
  }

  public boolean isActive() {
    return active;
  }

  public void setActive(boolean active) {
    this.active = active;
  }

  /** {@code reserved}, {@code extended}, {@code unreserved} or {@code lost} (PostgreSQL 13+). */
  public String getWalStatus() {
    return walStatus;
  }

  public void setWalStatus(String walStatus) {
    this.walStatus = walStatus;
  }

  /** Bytes of WAL written since the relay's last confirmed position; null when never confirmed. */
  public Long getUnconfirmedBytes() {
    return unconfirmedBytes;
  }

  public void setUnconfirmedBytes(Long unconfirmedBytes) {
    this.unconfirmedBytes = unconfirmedBytes;
  }

  /** Bytes of WAL the server retains for this slot; null when the slot holds none. */
  public Long getRetainedBytes() {
    return retainedBytes;
  }

  public void setRetainedBytes(Long retainedBytes) {
    this.retainedBytes = retainedBytes;
  }
}
