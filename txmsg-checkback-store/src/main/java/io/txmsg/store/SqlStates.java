package io.txmsg.store;

import java.sql.SQLException;

/**
 * Classifies SQL failures by SQLState and vendor code, never by message text (messages are
 * localized and change between driver versions).
 */
public final class SqlStates {
  private SqlStates() {}

  /** A unique/primary-key violation: SQLState class 23 (PG/H2 23505, MariaDB 23000/1062). */
  public static boolean isDuplicateKey(Throwable t) {
    SQLException e = find(t);
    while (e != null) {
      String state = e.getSQLState();
      if (state != null && state.startsWith("23")) {
        return true;
      }
      e = e.getNextException();
    }
    return false;
  }

  /**
   * A bounded lock wait ran out: PG 55P03 (lock_timeout) or 57014 (statement timeout); H2 HYT00 /
   * 50200; MariaDB 1205 (innodb_lock_wait_timeout) or 1969 / 70100 (max_statement_time).
   */
  public static boolean isLockTimeout(Throwable t) {
    SQLException e = find(t);
    while (e != null) {
      String state = e.getSQLState();
      int code = e.getErrorCode();
      if ("55P03".equals(state)
          || "57014".equals(state)
          || "HYT00".equals(state)
          || "70100".equals(state)
          || code == 50200
          || code == 1205
          || code == 1969
          || code == 3024) {
        return true;
      }
      e = e.getNextException();
    }
    return false;
  }

  /** The first SQLException in the cause chain, or null. */
  public static SQLException find(Throwable t) {
    Throwable c = t;
    int depth = 0;
    while (c != null && depth++ < 20) {
      if (c instanceof SQLException) {
        return (SQLException) c;
      }
      c = c.getCause();
    }
    return null;
  }
}
