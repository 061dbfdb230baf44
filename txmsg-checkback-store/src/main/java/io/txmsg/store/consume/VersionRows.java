package io.txmsg.store.consume;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * The version guard's rows ({@code aggregate_version}: group, aggregate type, aggregate id → last
 * applied version). Two ways to reach a row, chosen by the dialect ({@link #createdInClaim()}):
 *
 * <ul>
 *   <li><b>PostgreSQL</b>: one {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <rule>} in the
 *       claim transaction. A conflict is not an error there (nothing aborts the transaction), and a
 *       concurrent inserter of the same key is waited for and then judged against its committed row
 *       (or inserts if that one rolled back).
 *   <li><b>MariaDB</b>: in the claim transaction, a row not known to exist is created by an insert
 *       that never fails on a duplicate and locks an existing row exclusively at once (a no-op
 *       {@code ON DUPLICATE KEY UPDATE}, never INSERT IGNORE, whose shared lock deadlocks two
 *       claims of one aggregate), then one conditional UPDATE. No transaction of its own.
 *   <li><b>H2</b>: the row is created first by an insert-if-absent in a short transaction of its
 *       own ({@link #createIfAbsent}; a failing INSERT inside the claim transaction could make H2
 *       lock waits spin), then one conditional UPDATE in the claim transaction.
 * </ul>
 *
 * <p>The system property {@value #OWN_TRANSACTION_PROPERTY}{@code =true} makes MariaDB create the
 * row in a transaction of its own as H2 does (the path before the in-claim insert), read when the
 * rows are constructed: for comparing the two, not a setting.
 */
public final class VersionRows {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  /** See the class comment: MariaDB's version row in a transaction of its own, for comparison. */
  public static final String OWN_TRANSACTION_PROPERTY = "txmsg.internal.versionRowOwnTransaction";

  private final boolean upsert;
  private final boolean createInClaim;

  /** Rows reached the way the dialect does best. */
  public VersionRows(DataSource dataSource, TxmsgStore store) {
    this(
        dataSource,
        store,
        store.dialect().upsertsVersionRows(),
        store.dialect().createsVersionRowsInClaim()
            && !Boolean.getBoolean(OWN_TRANSACTION_PROPERTY));
  }

  /**
   * Rows reached the way the caller says: {@code upsert} needs a dialect that upserts version rows
   * (PostgreSQL); the insert-if-absent and conditional UPDATE work on every database (what the
   * concurrency tests run on PostgreSQL too).
   *
   * @throws IllegalArgumentException for {@code upsert} on a dialect without it
   */
  public VersionRows(DataSource dataSource, TxmsgStore store, boolean upsert) {
    this(dataSource, store, upsert, false);
  }

  /**
   * As {@link #VersionRows(DataSource, TxmsgStore, boolean)}; {@code createInClaim} creates a
   * missing row inside the claim transaction before the conditional UPDATE (needs a dialect that
   * does so: MariaDB).
   *
   * @throws IllegalArgumentException for a way the dialect does not have
   */
  public VersionRows(
      DataSource dataSource, TxmsgStore store, boolean upsert, boolean createInClaim) {
    if (upsert && !store.dialect().upsertsVersionRows()) {
      throw new IllegalArgumentException(store.dialect() + " has no version-row upsert");
    }
    if (createInClaim && (upsert || !store.dialect().createsVersionRowsInClaim())) {
      throw new IllegalArgumentException(
          store.dialect() + " does not create version rows in the claim transaction");
    }
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
    this.upsert = upsert;
    this.createInClaim = createInClaim;
  }

  /**
   * True when {@link #apply} creates a missing row itself: {@link #createIfAbsent} is not needed.
   */
  public boolean createdInClaim() {
    return upsert || createInClaim;
  }

  /**
   * Creates the row with a NULL version unless it exists, in a short transaction of its own (a
   * concurrent creator winning is what was asked for).
   */
  public void createIfAbsent(String group, String aggregateType, String aggregateId)
      throws Exception {
    try {
      transactions.run(
          AggregateVersionMapper.class, m -> m.insertIfAbsent(group, aggregateType, aggregateId));
    } catch (Exception ex) {
      if (!SqlStates.isDuplicateKey(ex)) { // H2: a concurrent creator won, which is what we want
        throw ex;
      }
    }
  }

  /**
   * The guard, ONE conditional statement on the claim transaction's connection: sets {@code
   * version} when the rule allows (monotonic: newer than the last applied, or none applied yet;
   * {@code contiguous}: exactly last + 1, or none applied yet).
   *
   * @return true when applied now; false when not (stale or a gap: {@link #lastApplied} tells)
   */
  public boolean apply(
      Connection c,
      String group,
      String aggregateType,
      String aggregateId,
      long version,
      String eventId,
      boolean contiguous) {
    return apply(c, group, aggregateType, aggregateId, version, eventId, contiguous, true);
  }

  /**
   * As {@link #apply(Connection, String, String, String, long, String, boolean)}; where rows are
   * created in the claim ({@link #createdInClaim()} on MariaDB), {@code mayBeMissing} false skips
   * the insert for a row the caller knows exists (only the conditional UPDATE runs).
   */
  public boolean apply(
      Connection c,
      String group,
      String aggregateType,
      String aggregateId,
      long version,
      String eventId,
      boolean contiguous,
      boolean mayBeMissing) {
    int n =
        store.on(
            c,
            AggregateVersionMapper.class,
            m -> {
              if (createInClaim && mayBeMissing) {
                m.insertIfAbsent(group, aggregateType, aggregateId);
              }
              if (upsert) {
                return contiguous
                    ? m.upsertContiguous(group, aggregateType, aggregateId, version, eventId)
                    : m.upsertMonotonic(group, aggregateType, aggregateId, version, eventId);
              }
              return contiguous
                  ? m.applyContiguous(group, aggregateType, aggregateId, version, eventId)
                  : m.applyMonotonic(group, aggregateType, aggregateId, version, eventId);
            });
    return n == 1;
  }

  /** The last applied version on the caller's connection; null when there is no row or none yet. */
  public Long lastApplied(Connection c, String group, String aggregateType, String aggregateId) {
    return store.on(
        c, AggregateVersionMapper.class, m -> m.lastApplied(group, aggregateType, aggregateId));
  }

  /** {@link #lastApplied(Connection, String, String, String)} in a short transaction of its own. */
  public Long lastApplied(String group, String aggregateType, String aggregateId) throws Exception {
    return transactions.run(c -> lastApplied(c, group, aggregateType, aggregateId));
  }
}
