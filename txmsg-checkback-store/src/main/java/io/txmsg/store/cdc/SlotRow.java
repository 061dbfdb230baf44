package io.txmsg.store.cdc;

/** A PostgreSQL replication slot as {@code pg_replication_slots} describes it. */
public class SlotRow {
  private String slotName;
  private String plugin;
  private String database;
  private boolean active;
  private Integer activePid;
  private String walStatus;

  public String getSlotName() {
    return slotName;
  }

  public void setSlotName(String slotName) {
    this.slotName = slotName;
  }

  public String getPlugin() {
    return plugin;
  }

  public void setPlugin(String plugin) {
    this.plugin = plugin;
  }

  /** The database the slot decodes. */
  public String getDatabase() {
    return database;
  }

  public void setDatabase(String database) {
    this.database = database;
  }

  /** Whether a walsender reads it now. */
  public boolean isActive() {
    return active;
  }

  public void setActive(boolean active) {
    this.active = active;
  }

  /** The reading walsender's process id, or null. */
  public Integer getActivePid() {
    return activePid;
  }

  public void setActivePid(Integer activePid) {
    this.activePid = activePid;
  }

  /**
   * {@code reserved}, {@code extended}, {@code unreserved} or {@code lost}: lost means the server
   * removed WAL the slot still needed (max_slot_wal_keep_size) and the slot cannot be read again.
   */
  public String getWalStatus() {
    return walStatus;
  }

  public void setWalStatus(String walStatus) {
    this.walStatus = walStatus;
  }

  public boolean isLost() {
    return "lost".equals(walStatus);
  }
}
