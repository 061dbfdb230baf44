package io.txmsg.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The SQL dialects txmsg ships schemas and mapper statements for, each carrying the differences
 * that cannot be expressed as a databaseId variant of a mapper statement: how the fencing insert's
 * lock wait is bounded, how due journal rows are claimed, and which vendor codes mean "a bounded
 * lock wait ran out". Code outside this type asks the dialect instead of comparing constants.
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
  H2("h2", Set.of("HYT00"), Set.of(50200)) {
    @Override
    LockWait boundLockWait(AttemptMapper mapper, long millis) {
      Long previous = mapper.currentLockTimeout();
      mapper.setLockTimeout(millis);
      return previous == null ? null : () -> mapper.setLockTimeout(previous);
    }

    @Override
    List<String> claimDue(StoreTransactions tx, String ownerToken, long leaseMillis, int batchSize)
        throws Exception {
      List<String> candidates = tx.run(JournalMapper.class, m -> m.selectDue(batchSize));
      List<String> claimed = new ArrayList<>();
      for (String id : candidates) {
        if (tx.run(JournalMapper.class, m -> m.claim(id, ownerToken, leaseMillis)) == 1) {
          claimed.add(id);
        }
      }
      return claimed;
    }
  },

  /**
   * MySQL 8 / MariaDB 10.6+. innodb_lock_wait_timeout takes whole seconds only, so the fencing
   * insert carries its own bound ({@code SET STATEMENT max_statement_time ... FOR INSERT}, in
   * AttemptMapper.xml), which takes fractions and rolls back the statement only. 1205 is
   * innodb_lock_wait_timeout, 1969 / 70100 MariaDB's max_statement_time, 3024 MySQL's
   * max_execution_time.
   */
  MYSQL("mysql", Set.of("70100"), Set.of(1205, 1969, 3024)) {
    @Override
    LockWait boundLockWait(AttemptMapper mapper, long millis) {
      return null; // bounded inside the insert statement itself: nothing to restore
    }
  },

  /**
   * PostgreSQL. A lock timeout aborts the whole transaction, so the bound is {@code SET LOCAL
   * lock_timeout} inside the fence's own short transaction and ends with it. 55P03 is
   * lock_not_available (lock_timeout), 57014 query_canceled (statement_timeout).
   */
  POSTGRESQL("postgresql", Set.of("55P03", "57014"), Set.of()) {
    @Override
    LockWait boundLockWait(AttemptMapper mapper, long millis) {
      mapper.setLockTimeout(millis);
      return null; // SET LOCAL ends with the transaction: nothing to restore
    }
  };

  /**
   * What {@link #boundLockWait} changed beyond the transaction and must be put back once the
   * transaction has ended.
   */
  @FunctionalInterface
  interface LockWait {
    /** Restores the previous setting; the caller commits afterwards. */
    void restore();
  }

  private final String id;
  private final Set<String> lockTimeoutStates;
  private final Set<Integer> lockTimeoutCodes;

  Dialect(String id, Set<String> lockTimeoutStates, Set<Integer> lockTimeoutCodes) {
    this.id = id;
    this.lockTimeoutStates = lockTimeoutStates;
    this.lockTimeoutCodes = lockTimeoutCodes;
  }

  /** The MyBatis databaseId and the schema file prefix. */
  public String id() {
    return id;
  }

  /**
   * Bounds the lock wait of the next attempt insert ({@link AttemptMapper#insertWithLockWait}) on
   * this transaction's connection.
   *
   * @return what to restore once the transaction ended, or null when the bound ends with it
   */
  abstract LockWait boundLockWait(AttemptMapper mapper, long millis);

  /**
   * Claims up to {@code batchSize} due journal rows (PENDING/RETRY past next_retry_at, SENDING with
   * an expired lease) for {@code ownerToken}: each becomes SENDING with a lease of {@code
   * leaseMillis}. The default reads the candidates FOR UPDATE SKIP LOCKED and claims them in the
   * same short transaction, so concurrent reconcilers take disjoint rows.
   *
   * @return the claimed event ids
   */
  List<String> claimDue(StoreTransactions tx, String ownerToken, long leaseMillis, int batchSize)
      throws Exception {
    return tx.run(
        JournalMapper.class,
        m -> {
          List<String> out = new ArrayList<>();
          for (String id : m.selectDue(batchSize)) {
            if (m.claim(id, ownerToken, leaseMillis) == 1) {
              out.add(id);
            }
          }
          return out;
        });
  }

  /** Whether this exception (not its chain) is this dialect's "bounded lock wait ran out". */
  boolean isLockTimeout(SQLException e) {
    String state = e.getSQLState();
    // Set.of(..).contains(null) throws: some drivers leave the SQLState null.
    return (state != null && lockTimeoutStates.contains(state))
        || lockTimeoutCodes.contains(e.getErrorCode());
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
