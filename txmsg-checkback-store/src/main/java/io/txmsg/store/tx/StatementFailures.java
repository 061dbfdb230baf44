package io.txmsg.store.tx;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The connection-level failure detector (docs/architecture.md, "Failed statements inside the
 * action"). txmsg hands the action (and a consumer's handler) an observed view of the connection of
 * its own transaction; every {@link SQLException} raised by that connection or a statement made
 * from it while the detector {@link #watch watches} is recorded, whether or not the application
 * caught it. Why: a swallowed failed statement is rolled back whole by PostgreSQL, whole by MariaDB
 * only on a deadlock, and statement-only by H2 and MariaDB otherwise — without the detector the
 * same action would commit on one database and roll back on another.
 *
 * <p>A failure counts as recovered when the application rolled back to a savepoint set before it
 * (Spring's NESTED propagation does exactly that), and is ignored when its SQLState starts with a
 * prefix the action declared with {@link #ignore} ("catch duplicate key and continue": {@code
 * "23"}).
 *
 * <p>Not thread-safe: one transaction, one thread.
 */
public final class StatementFailures {
  private static final StatementFailures UNOBSERVED = new StatementFailures(false);

  private final List<Failure> failures = new ArrayList<>(0);
  private final Map<Savepoint, Integer> savepoints = new IdentityHashMap<>();
  private final List<String> ignored = new ArrayList<>(0);
  private final boolean coversTransaction;
  private boolean watching;
  private boolean uncertain;
  private boolean lastStopClean;
  private int sequence;

  private record Failure(int sequence, SQLException error) {}

  private StatementFailures(boolean coversTransaction) {
    this.coversTransaction = coversTransaction;
  }

  /**
   * An observed view of {@code raw}, the connection that every statement of its transaction goes
   * through (what txmsg hands the action or handler, and binds for Spring and mybatis-spring): the
   * same connection, with this detector attached.
   */
  public static Connection observe(Connection raw) {
    return observe(raw, true);
  }

  /**
   * An observed view of {@code raw} when other statements of the same transaction may go through
   * another view of it (e.g. a transaction txmsg joined instead of starting it): failures seen are
   * still reported, but {@link #provedClean()} is never true, so nothing relies on the detector
   * alone.
   */
  public static Connection observeOwnStatementsOnly(Connection raw) {
    return observe(raw, false);
  }

  private static Connection observe(Connection raw, boolean coversTransaction) {
    if (raw instanceof Observed) {
      return raw;
    }
    StatementFailures tracker = new StatementFailures(coversTransaction);
    return (Connection)
        Proxy.newProxyInstance(
            StatementFailures.class.getClassLoader(),
            new Class<?>[] {Connection.class, Observed.class},
            new ConnectionHandler(raw, tracker));
  }

  /** The detector of an observed connection; one that never records for any other. */
  public static StatementFailures of(Connection connection) {
    return connection instanceof Observed o ? o.statementFailures() : UNOBSERVED;
  }

  /** True when failures on this connection are seen (false for an unobserved connection). */
  public boolean observing() {
    return this != UNOBSERVED;
  }

  /** Starts recording (forgets what came before, e.g. txmsg's own statements). */
  public void watch() {
    failures.clear();
    savepoints.clear();
    ignored.clear();
    uncertain = false;
    watching = true;
  }

  /**
   * Failed statements whose SQLState starts with one of these prefixes are not counted (e.g. {@code
   * "23"}: integrity constraint violations the application handles itself).
   */
  public void ignore(String... sqlStatePrefixes) {
    for (String p : sqlStatePrefixes) {
      if (p != null && !p.isEmpty()) {
        ignored.add(p);
      }
    }
  }

  /**
   * Stops recording and returns the first failure that was neither recovered by a savepoint
   * rollback nor ignored (the later ones attached as suppressed), or null when there was none.
   */
  public SQLException stop() {
    watching = false;
    // Savepoint rollbacks already removed what they recovered; an ignored failure stays here.
    lastStopClean = failures.isEmpty() && !uncertain;
    SQLException first = null;
    for (Failure f : failures) {
      if (isIgnored(f.error)) {
        continue;
      }
      if (first == null) {
        first = f.error;
      } else if (first != f.error) {
        first.addSuppressed(f.error);
      }
    }
    failures.clear();
    return first;
  }

  /**
   * True when the last {@link #watch}…{@link #stop} window saw no failed statement at all (none, or
   * only ones a savepoint rollback recovered), nothing that may have ended or left the transaction
   * (see {@link #endsOrLeavesTransaction}), and this detector sees every statement of its
   * transaction. Then the transaction is known to be committable on every database, and a
   * self-check statement ("must touch 1 row", which would fail in a PostgreSQL transaction that a
   * swallowed failure aborted) adds nothing. False after an ignored failure: PostgreSQL has aborted
   * the transaction unless a savepoint was rolled back, so the self-check must run.
   */
  public boolean provedClean() {
    return coversTransaction && !watching && lastStopClean;
  }

  /**
   * Statements that provably stay inside the transaction start with one of these words (after
   * comments and whitespace). Anything else may end it (COMMIT, ROLLBACK, END, ABORT), start
   * another, commit implicitly (DDL on MariaDB/MySQL), or do so inside a procedure (CALL): the
   * self-check then runs, as it does for a statement this detector cannot see.
   */
  private static final List<String> IN_TRANSACTION =
      List.of(
          "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH", "VALUES", "REPLACE", "TABLE");

  /** True unless {@code sql} starts with a word of {@link #IN_TRANSACTION}. */
  static boolean endsOrLeavesTransaction(String sql) {
    if (sql == null) {
      return true;
    }
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c) || c == '(') {
        i++;
      } else if (sql.startsWith("--", i)) {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        break;
      }
    }
    int start = i;
    while (i < n && Character.isLetter(sql.charAt(i))) {
      i++;
    }
    String word = sql.substring(start, i).toUpperCase(java.util.Locale.ROOT);
    return !IN_TRANSACTION.contains(word);
  }

  /** Something the window cannot vouch for: the self-check must run. */
  private void uncertain() {
    if (watching) {
      uncertain = true;
    }
  }

  private void sql(Object sql) {
    if (watching && (!(sql instanceof String text) || endsOrLeavesTransaction(text))) {
      uncertain = true;
    }
  }

  private boolean isIgnored(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    for (String p : ignored) {
      if (state.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  private void failed(SQLException e) {
    if (watching) {
      failures.add(new Failure(++sequence, e));
    }
  }

  private void savepoint(Savepoint sp) {
    if (watching) {
      savepoints.put(sp, ++sequence);
    }
  }

  private void rolledBackTo(Savepoint sp) {
    Integer at = savepoints.get(sp);
    if (at != null) {
      failures.removeIf(f -> f.sequence > at);
    }
  }

  /** Marks an observed connection; package-private view of its detector. */
  interface Observed {
    StatementFailures statementFailures();
  }

  private static Object invoke(Object target, Method m, Object[] args, StatementFailures t)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException sql) {
        t.failed(sql);
      }
      throw cause;
    }
  }

  private static final class ConnectionHandler implements InvocationHandler {
    private final Connection raw;
    private final StatementFailures tracker;

    ConnectionHandler(Connection raw, StatementFailures tracker) {
      this.raw = raw;
      this.tracker = tracker;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      switch (m.getName()) {
        case "statementFailures":
          return tracker;
        case "equals":
          return proxy == args[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        case "toString":
          return "observed " + raw;
        default:
          break;
      }
      switch (m.getName()) {
        // The transaction may end or be bypassed: commit/rollback of the whole transaction,
        // autocommit, the raw connection handed out, the connection closed or aborted.
        case "commit", "setAutoCommit", "unwrap", "close", "abort" -> tracker.uncertain();
        case "rollback" -> {
          if (args == null || args.length == 0) {
            tracker.uncertain();
          }
        }
        case "prepareStatement", "prepareCall" -> tracker.sql(args[0]);
        default -> {
          // nothing to note
        }
      }
      Object result = StatementFailures.invoke(raw, m, args, tracker);
      if (result instanceof Statement s) {
        return statement(s, (Connection) proxy);
      }
      if (result instanceof Savepoint sp) {
        tracker.savepoint(sp);
      } else if ("rollback".equals(m.getName()) && args != null && args.length == 1) {
        tracker.rolledBackTo((Savepoint) args[0]);
      }
      return result;
    }

    private Object statement(Statement s, Connection owner) {
      Class<?> type =
          s instanceof CallableStatement
              ? CallableStatement.class
              : s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
      return Proxy.newProxyInstance(
          StatementFailures.class.getClassLoader(),
          new Class<?>[] {type},
          (proxy, m, args) -> {
            String name = m.getName();
            if ("getConnection".equals(name)) {
              return owner;
            }
            if (args != null
                && args.length > 0
                && args[0] instanceof String
                && (name.startsWith("execute") || "addBatch".equals(name))) {
              tracker.sql(args[0]); // a Statement's SQL is given here, not at creation
            } else if ("unwrap".equals(name)) {
              tracker.uncertain();
            }
            return StatementFailures.invoke(s, m, args, tracker);
          });
    }
  }
}
