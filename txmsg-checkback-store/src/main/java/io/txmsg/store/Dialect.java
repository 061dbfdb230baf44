package io.txmsg.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;

/**
 * The SQL dialects txmsg ships schemas and mapper statements for, each carrying the differences
 * that cannot be expressed as a databaseId variant of a mapper statement: how the fencing insert's
 * lock wait is bounded, how due journal rows are claimed ({@link #locksClaimCandidates}, {@link
 * #returnsClaimedRows}), how schema upgrades are serialised, and which vendor codes mean "a bounded
 * lock wait ran out" or "this table, column or index already exists". Code outside this type asks
 * the dialect instead of comparing constants. The statements it runs itself are in {@link
 * SessionMapper}; {@link TxmsgStore} hands them a session on the caller's connection.
 *
 * <p>Detected from JDBC metadata; {@link #id()} is the MyBatis databaseId that selects the
 * dialect's statements and the prefix of its schema file.
 */
public enum Dialect {
  /**
   * H2 2.x. The lock wait is the session's LOCK_TIMEOUT, which outlives the transaction, so it is
   * restored after the fence. H2 applies LIMIT before SKIP LOCKED when ORDER BY is present: a
   * locking candidate read could return fewer rows than are due, so candidates are read unlocked
   * and each is claimed by the conditional UPDATE in a transaction of its own.
   */
  H2(
      "h2",
      new Codes(Set.of("HYT00"), Set.of(50200)),
      // table or view, index, column, constraint already exists
      new Codes(Set.of(), Set.of(42101, 42111, 42121, 90045))) {
    /**
     * H2 has no advisory lock, and DDL commits the transaction it runs in, so a row lock taken on
     * the upgrading connection would end with its first statement. The lock is an uncommitted
     * insert of a lock row, on a second connection: a concurrent upgrader's identical insert waits
     * for it (bounded by LOCK_TIMEOUT, raised to {@code wait} meanwhile), and the rollback that
     * releases it leaves nothing behind.
     */
    @Override
    SchemaLock lockSchema(TxmsgStore store, Connection ddl, DataSource dataSource, Duration wait)
        throws SQLException {
      Connection c = dataSource.getConnection();
      try {
        c.setAutoCommit(false);
        SqlSession session = store.session(c);
        SessionMapper settings = session.getMapper(SessionMapper.class);
        Long previous = settings.currentLockTimeout();
        settings.setLockTimeout(Math.max(1, wait.toMillis()));
        SchemaLock release =
            () -> {
              try (c) {
                c.rollback();
                if (previous != null) {
                  settings.setLockTimeout(previous);
                }
              }
            };
        try {
          settings.insertLockRow();
          return release;
        } catch (RuntimeException e) {
          SQLException cause = sqlCause(e);
          release.close();
          if (cause != null && isLockTimeout(cause)) {
            return null;
          }
          throw e;
        }
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
    }

    @Override
    LockWait boundLockWait(SessionMapper session, long millis) {
      Long previous = session.currentLockTimeout();
      session.setLockTimeout(millis);
      return previous == null ? null : () -> session.setLockTimeout(previous);
    }

    @Override
    public boolean locksClaimCandidates() {
      return false;
    }
  },

  /**
   * MySQL 8 / MariaDB 10.6+. innodb_lock_wait_timeout takes whole seconds only, so the fencing
   * insert carries its own bound ({@code SET STATEMENT max_statement_time ... FOR INSERT}, in
   * AttemptMapper.xml), which takes fractions and rolls back the statement only. 1205 is
   * innodb_lock_wait_timeout, 1969 / 70100 MariaDB's max_statement_time, 3024 MySQL's
   * max_execution_time.
   */
  MYSQL(
      "mysql",
      new Codes(Set.of("70100"), Set.of(1205, 1969, 3024)),
      // table, column, index (key name) already exists
      new Codes(Set.of(), Set.of(1050, 1060, 1061))) {
    @Override
    LockWait boundLockWait(SessionMapper session, long millis) {
      return null; // bounded inside the insert statement itself: nothing to restore
    }

    /**
     * A named lock (GET_LOCK) of the upgrading connection's session: DDL commits implicitly on
     * MariaDB/MySQL, and a named lock, unlike a row lock, outlives those commits. GET_LOCK waits
     * itself, in whole seconds.
     */
    @Override
    SchemaLock lockSchema(TxmsgStore store, Connection ddl, DataSource dataSource, Duration wait) {
      SqlSession session = store.session(ddl);
      SessionMapper m = session.getMapper(SessionMapper.class);
      long seconds = (wait.toMillis() + 999) / 1000;
      Integer got = m.getLock(seconds);
      if (got == null) {
        session.close();
        throw new IllegalStateException("GET_LOCK failed for the txmsg schema lock");
      }
      if (got != 1) {
        session.close();
        return null;
      }
      return () -> {
        try (session) {
          m.releaseLock();
        }
      };
    }
  },

  /**
   * PostgreSQL. A lock timeout aborts the whole transaction, so the bound is {@code SET LOCAL
   * lock_timeout} inside the fence's own short transaction and ends with it. 55P03 is
   * lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout).
   */
  POSTGRESQL(
      "postgresql",
      new Codes(Set.of("55P03", "57014"), Set.of()),
      // duplicate_table (also an existing index), duplicate_column, duplicate_object
      new Codes(Set.of("42P07", "42701", "42710"), Set.of())) {
    @Override
    LockWait boundLockWait(SessionMapper session, long millis) {
      session.setLockTimeout(millis);
      return null; // SET LOCAL ends with the transaction: nothing to restore
    }

    @Override
    void planWithoutJit(SessionMapper session) {
      session.planWithoutJit();
    }

    @Override
    public boolean returnsClaimedRows() {
      return true;
    }

    /**
     * A session-level advisory lock of the upgrading connection: each upgrade statement commits on
     * its own (the shortest ACCESS EXCLUSIVE lock on the tables), so a transaction-level lock would
     * end with the first one. pg_try_advisory_lock is polled so that the wait is bounded without
     * changing the session's lock_timeout.
     */
    @Override
    SchemaLock lockSchema(TxmsgStore store, Connection ddl, DataSource dataSource, Duration wait)
        throws SQLException {
      SqlSession session = store.session(ddl);
      SessionMapper m = session.getMapper(SessionMapper.class);
      long deadline = System.nanoTime() + wait.toNanos();
      while (!Boolean.TRUE.equals(m.tryAdvisoryLock())) {
        if (System.nanoTime() - deadline > 0) {
          session.close();
          return null;
        }
        try {
          TimeUnit.MILLISECONDS.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          session.close();
          throw new SQLException("interrupted while waiting for the txmsg schema lock", e);
        }
      }
      return () -> {
        try (session) {
          m.advisoryUnlock();
        }
      };
    }
  };

  /**
   * What {@link #boundLockWait} changed beyond the transaction and must be put back once the
   * transaction has ended.
   */
  @FunctionalInterface
  public interface LockWait {
    /** Restores the previous setting; the caller commits afterwards. */
    void restore();
  }

  /** Held while a schema install or upgrade runs; closing it releases the lock. */
  @FunctionalInterface
  public interface SchemaLock extends AutoCloseable {
    @Override
    void close() throws SQLException;
  }

  /** SQLStates and vendor codes that mean one condition on one database. */
  record Codes(Set<String> states, Set<Integer> vendorCodes) {
    boolean match(SQLException e) {
      String state = e.getSQLState();
      // Set.of(..).contains(null) throws: some drivers leave the SQLState null.
      return (state != null && states.contains(state)) || vendorCodes.contains(e.getErrorCode());
    }
  }

  private final String id;
  private final Codes lockTimeout;
  private final Codes alreadyExists;

  Dialect(String id, Codes lockTimeout, Codes alreadyExists) {
    this.id = id;
    this.lockTimeout = lockTimeout;
    this.alreadyExists = alreadyExists;
  }

  /**
   * Whether the consumer's version guard reaches its {@code aggregate_version} row with one upsert
   * in the claim transaction (PostgreSQL: {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE}, where
   * a conflict aborts nothing), instead of an insert-if-absent in a transaction of its own followed
   * by a conditional UPDATE (H2, MariaDB).
   */
  public boolean upsertsVersionRows() {
    return this == POSTGRESQL;
  }

  /**
   * Whether the version guard creates a missing {@code aggregate_version} row inside the claim
   * transaction, with an insert that never fails on an existing row and locks it exclusively at
   * once (MariaDB: a no-op {@code INSERT ... ON DUPLICATE KEY UPDATE}), before its conditional
   * UPDATE. H2 keeps the insert-if-absent in a transaction of its own: its only insert-if-absent
   * form inside a transaction is a failing INSERT, after which a lock waiter on that row can spin.
   */
  public boolean createsVersionRowsInClaim() {
    return this == MYSQL;
  }

  /** The MyBatis databaseId and the schema file prefix. */
  public String id() {
    return id;
  }

  /**
   * Bounds the lock wait of the next attempt insert (the fence's {@code insertWithLockWait}) on
   * this transaction's connection.
   *
   * @return what to restore once the transaction ended, or null when the bound ends with it
   */
  abstract LockWait boundLockWait(SessionMapper session, long millis);

  /**
   * Turns off query JIT compilation for the rest of the current transaction where the database has
   * it (PostgreSQL 11+, {@code jit = on} by default): the candidate query's estimated cost passes
   * {@code jit_above_cost} as soon as many rows are unsent, and compiling it cost 0.5-1 s per
   * reconciler round against a few milliseconds to run it. No-op elsewhere.
   */
  void planWithoutJit(SessionMapper session) {}

  /**
   * Whether due journal rows are claimed by reading the candidates FOR UPDATE SKIP LOCKED and
   * claiming them in the same short transaction, so that concurrent reconcilers take disjoint rows
   * (true), or by reading them unlocked and claiming each with its conditional UPDATE in a
   * transaction of its own (false: H2, which applies LIMIT before SKIP LOCKED when ORDER BY is
   * present, so a locking read could return fewer rows than are due).
   */
  public boolean locksClaimCandidates() {
    return true;
  }

  /**
   * Whether the batch claim's UPDATE returns the claimed rows itself ({@code UPDATE ... RETURNING
   * *}: PostgreSQL), instead of reading them back by owner token.
   */
  public boolean returnsClaimedRows() {
    return false;
  }

  /** Whether this exception (not its chain) is this dialect's "bounded lock wait ran out". */
  public boolean isLockTimeout(SQLException e) {
    return lockTimeout.match(e);
  }

  /**
   * Whether a DDL statement failed because the table, column, index or constraint it creates is
   * already there: on MariaDB and H2 every DDL statement commits by itself, so an upgrade that was
   * interrupted has run some of its statements, and running it again must step over them.
   */
  public boolean isAlreadyExists(SQLException e) {
    return alreadyExists.match(e);
  }

  /**
   * Takes the lock that serialises schema installs and upgrades of {@code store}'s prefix in this
   * database, waiting at most {@code wait}. It must outlive commits: the upgrade's statements each
   * commit (implicitly on MariaDB and H2).
   *
   * @param ddl the connection the upgrade runs on, in auto-commit mode
   * @param dataSource where a dialect that locks on a second connection takes it
   * @return the held lock, or null when another session held it for all of {@code wait}
   */
  abstract SchemaLock lockSchema(
      TxmsgStore store, Connection ddl, DataSource dataSource, Duration wait) throws SQLException;

  /** The first SQLException in the cause chain (MyBatis wraps them), or null. */
  private static SQLException sqlCause(Throwable t) {
    for (int depth = 0; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof SQLException e) {
        return e;
      }
    }
    return null;
  }

  /**
   * @throws IllegalArgumentException for a database txmsg has no schema for
   */
  public static Dialect detect(Connection connection) throws SQLException {
    String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("h2")) {
      return H2;
    }
    if (product.contains("mysql") || product.contains("mariadb")) {
      return MYSQL;
    }
    if (product.contains("postgres")) {
      return POSTGRESQL;
    }
    throw new IllegalArgumentException(
        "txmsg supports H2, MySQL/MariaDB and PostgreSQL; this database is '" + product + "'");
  }
}
