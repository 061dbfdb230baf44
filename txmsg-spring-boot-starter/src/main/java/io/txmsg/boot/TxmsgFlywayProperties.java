package io.txmsg.boot;

/** Binds {@code txmsg.flyway.*}: txmsg's own Flyway migrations. */
public class TxmsgFlywayProperties {
  /**
   * Run txmsg's Flyway migrations (io/txmsg/store/flyway per database, history table
   * flyway_txmsg_history for the default table prefix) before the txmsg beans start, when Flyway is
   * on the class path.
   */
  private boolean enabled = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }
}
