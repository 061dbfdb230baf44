package io.txmsg.consumer;

import io.txmsg.store.AggregateVersionMapper;
import io.txmsg.store.SqlStates;
import io.txmsg.store.StoreTransactions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The aggregate version guard of one consumer process: whether an event's aggregate version may be
 * applied now, decided in the claim transaction on the row {@code aggregate_version} (group,
 * aggregate type, aggregate id). MONOTONIC applies a version newer than the last applied;
 * CONTIGUOUS only last + 1. Either way the first version a group meets for an aggregate (no row, or
 * a row without a version) is applied. See docs/architecture.md, "The consume log".
 *
 * <p>Two ways to reach that row, chosen by {@link io.txmsg.store.Dialect#upsertsVersionRows()}:
 *
 * <ul>
 *   <li><b>PostgreSQL</b>: one {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <rule>} in the
 *       claim transaction. A conflict is not an error there (nothing aborts the transaction), and a
 *       concurrent inserter of the same key is waited for and then judged against its committed row
 *       (or inserts if that one rolled back).
 *   <li><b>H2, MariaDB</b>: the row is created first by an insert-if-absent in a short transaction
 *       of its own ({@link #prepare}; a failing INSERT inside the claim transaction could make H2
 *       lock waits spin), then one conditional UPDATE in the claim transaction. Rows known to exist
 *       are remembered, so a known aggregate costs no extra transaction.
 * </ul>
 */
final class VersionGuard {
  private static final int KNOWN_ROWS_MAX = 100_000;

  private final StoreTransactions storeTx;
  private final boolean upsert;

  /**
   * Version rows known to exist (nothing but an operator deletes them). Bounded by clearing:
   * forgetting only costs one insert-if-absent again.
   */
  private final Set<String> knownRows = ConcurrentHashMap.newKeySet();

  VersionGuard(StoreTransactions storeTx, boolean upsert) {
    this.storeTx = storeTx;
    this.upsert = upsert;
  }

  /**
   * Before the claim transaction: makes sure the row exists (insert-if-absent in its own
   * transaction), unless this process has seen it or the dialect upserts it in the claim.
   */
  void prepare(String group, String aggregateType, String aggregateId) throws Exception {
    if (upsert) {
      return;
    }
    String key = key(group, aggregateType, aggregateId);
    if (knownRows.contains(key)) {
      return;
    }
    try {
      storeTx.run(
          AggregateVersionMapper.class, m -> m.insertIfAbsent(group, aggregateType, aggregateId));
    } catch (Exception ex) {
      if (!SqlStates.isDuplicateKey(ex)) { // H2: a concurrent creator won, which is what we want
        throw ex;
      }
    }
    if (knownRows.size() >= KNOWN_ROWS_MAX) {
      knownRows.clear();
    }
    knownRows.add(key);
  }

  /**
   * In the claim transaction: one statement that applies the version if the rule allows.
   *
   * @return true: applied now (the row says this version); false: stale, skip it
   * @throws ConsumePipeline.GapException CONTIGUOUS found a gap: roll back, the broker redelivers
   * @throws ConsumePipeline.VersionRowMissingException the row vanished after {@link #prepare}
   *     (deleted by hand); transient, the next delivery creates it again
   */
  boolean apply(
      AggregateVersionMapper versions,
      String group,
      String aggregateType,
      String aggregateId,
      long version,
      String eventId,
      boolean contiguous) {
    int n;
    if (upsert) {
      n =
          contiguous
              ? versions.upsertContiguous(group, aggregateType, aggregateId, version, eventId)
              : versions.upsertMonotonic(group, aggregateType, aggregateId, version, eventId);
    } else {
      n =
          contiguous
              ? versions.applyContiguous(group, aggregateType, aggregateId, version, eventId)
              : versions.applyMonotonic(group, aggregateType, aggregateId, version, eventId);
    }
    if (n == 1) {
      return true;
    }
    Long last = versions.lastApplied(group, aggregateType, aggregateId);
    if (last == null) {
      knownRows.remove(key(group, aggregateType, aggregateId));
      throw new ConsumePipeline.VersionRowMissingException(aggregateType + "/" + aggregateId);
    }
    if (version <= last) {
      return false;
    }
    throw new ConsumePipeline.GapException(last);
  }

  private static String key(String group, String aggregateType, String aggregateId) {
    return group + '|' + aggregateType + '|' + aggregateId;
  }
}
