package io.txmsg.boot;

/** Binds {@code txmsg.liquibase.*}: txmsg's own Liquibase changelog. */
public class TxmsgLiquibaseProperties {
  /**
   * Run txmsg's Liquibase changelog (io/txmsg/store/liquibase/txmsg-changelog.xml, history tables
   * liquibase_txmsg_changelog and liquibase_txmsg_lock for the default table prefix) before the
   * txmsg beans start, when Liquibase is on the class path and txmsg's Flyway migrations do not run
   * (Flyway absent, or txmsg.flyway.enabled=false).
   */
  private boolean enabled = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }
}
