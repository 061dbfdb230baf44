package io.txmsg.store.tx;

import io.txmsg.store.Dialect;
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
   * A bounded lock wait ran out, on any dialect: the union of every {@link Dialect}'s lock-timeout
   * SQLStates and vendor codes (callers such as the consumer's failure classifier do not know the
   * dialect, and the codes do not collide between the databases).
   */
  public static boolean isLockTimeout(Throwable t) {
    SQLException e = find(t);
    while (e != null) {
      for (Dialect d : Dialect.values()) {
        if (d.isLockTimeout(e)) {
          return true;
        }
      }
      e = e.getNextException();
    }
    return false;
  }

  /**
   * A failure no retry fixes: SQLState class 22 (data exception), 23 (integrity constraint) or 42
   * (syntax error or access rule violation), unless it is a bounded lock wait that ran out. False
   * when there is no SQLException in the chain.
   */
  public static boolean isPermanent(Throwable t) {
    SQLException sql = find(t);
    if (sql == null || isLockTimeout(sql)) {
      return false;
    }
    String state = sql.getSQLState();
    return state != null
        && (state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
  }

  /** The SQLState of the first SQLException in the cause chain, or null. */
  public static String state(Throwable t) {
    SQLException sql = find(t);
    return sql == null ? null : sql.getSQLState();
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
