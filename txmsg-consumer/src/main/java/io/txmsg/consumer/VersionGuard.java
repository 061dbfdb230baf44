package io.txmsg.consumer;

import io.txmsg.store.consume.VersionRows;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The aggregate version guard of one consumer process: whether an event's aggregate version may be
 * applied now, decided in the claim transaction on the row {@code aggregate_version} (group,
 * aggregate type, aggregate id). MONOTONIC applies a version newer than the last applied;
 * CONTIGUOUS only last + 1. Either way the first version a group meets for an aggregate (no row, or
 * a row without a version) is applied. See docs/architecture.md, "The consume log".
 *
 * <p>Where the dialect needs the row created before the claim transaction ({@link VersionRows}:
 * H2), {@link #prepare} creates it in a short transaction of its own; on MariaDB the claim
 * transaction creates it ({@link VersionRows#createdInClaim()}). Either way rows known to exist are
 * remembered, so a known aggregate costs no extra transaction (H2) or statement (MariaDB).
 */
final class VersionGuard {
  private static final int KNOWN_ROWS_MAX = 100_000;

  private final VersionRows versions;

  /**
   * Version rows known to exist (nothing but an operator deletes them). Bounded by clearing:
   * forgetting only costs one insert-if-absent again.
   */
  private final Set<String> knownRows = ConcurrentHashMap.newKeySet();

  VersionGuard(VersionRows versions) {
    this.versions = versions;
  }

  /**
   * Before the claim transaction: makes sure the row exists (insert-if-absent in its own
   * transaction), unless this process has seen it or the dialect upserts it in the claim.
   */
  void prepare(String group, String aggregateType, String aggregateId) throws Exception {
    if (versions.createdInClaim()) {
      return;
    }
    String key = key(group, aggregateType, aggregateId);
    if (knownRows.contains(key)) {
      return;
    }
    versions.createIfAbsent(group, aggregateType, aggregateId);
    remember(key);
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
      Connection c,
      String group,
      String aggregateType,
      String aggregateId,
      long version,
      String eventId,
      boolean contiguous) {
    boolean known = knownRows.contains(key(group, aggregateType, aggregateId));
    if (versions.apply(
        c, group, aggregateType, aggregateId, version, eventId, contiguous, !known)) {
      return true;
    }
    Long last = versions.lastApplied(c, group, aggregateType, aggregateId);
    if (last == null) {
      knownRows.remove(key(group, aggregateType, aggregateId));
      throw new ConsumePipeline.VersionRowMissingException(aggregateType + "/" + aggregateId);
    }
    if (version <= last) {
      return false;
    }
    throw new ConsumePipeline.GapException(last);
  }

  /**
   * After the claim transaction committed: its row exists now (created in the claim on MariaDB), so
   * later claims of the aggregate skip the insert. Only after the commit: a rolled-back claim took
   * its insert with it.
   */
  void committed(String group, String aggregateType, String aggregateId) {
    if (versions.createdInClaim()) {
      remember(key(group, aggregateType, aggregateId));
    }
  }

  private void remember(String key) {
    if (knownRows.size() >= KNOWN_ROWS_MAX) {
      knownRows.clear();
    }
    knownRows.add(key);
  }

  private static String key(String group, String aggregateType, String aggregateId) {
    return group + '|' + aggregateType + '|' + aggregateId;
  }
}
