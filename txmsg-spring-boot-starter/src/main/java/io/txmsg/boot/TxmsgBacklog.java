package io.txmsg.boot;

import io.txmsg.store.DeadLetterRow;
import io.txmsg.store.DeadLetterStatus;
import io.txmsg.store.JournalStatus;
import io.txmsg.store.StoreTransactions;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.ops.DeadLetterQuery;
import io.txmsg.store.ops.JournalCount;
import io.txmsg.store.ops.JournalOldest;
import io.txmsg.store.ops.OpsQueryMapper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * What the txmsg tables hold right now, read with the store's operator queries ({@link
 * OpsQueryMapper}, the ones {@code txmsg journal stats} and {@code txmsg dlq list} use): no SQL of
 * its own, no payloads.
 *
 * @param pending journal rows not yet confirmed (PENDING, SENDING, RETRY)
 * @param oldestUnconfirmed age of the oldest of them by the database clock, or null when none
 * @param dead journal rows in DEAD
 * @param parkedByGroup PARKED dead letters per consumer group
 * @param parkedTruncated true when the scan stopped at its limit (the counts are lower bounds)
 */
record TxmsgBacklog(
    long pending,
    Duration oldestUnconfirmed,
    long dead,
    Map<String, Long> parkedByGroup,
    boolean parkedTruncated) {

  private static final Set<String> UNCONFIRMED =
      Set.of(
          JournalStatus.PENDING.name(), JournalStatus.SENDING.name(), JournalStatus.RETRY.name());

  /** Total PARKED dead letters over all groups. */
  long parked() {
    return parkedByGroup.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Reads the backlog in one short read-only transaction of its own. */
  static TxmsgBacklog read(DataSource dataSource, TxmsgStore store, int parkedScanLimit)
      throws Exception {
    return new StoreTransactions(dataSource, store)
        .run(OpsQueryMapper.class, ops -> of(ops, parkedScanLimit));
  }

  private static TxmsgBacklog of(OpsQueryMapper ops, int parkedScanLimit) {
    long pending = 0;
    long dead = 0;
    for (JournalCount c : ops.journalCounts()) {
      if (UNCONFIRMED.contains(c.getStatus())) {
        pending += c.getCount();
      } else if (JournalStatus.DEAD.name().equals(c.getStatus())) {
        dead += c.getCount();
      }
    }
    Duration oldest = null;
    for (JournalOldest o : ops.journalOldest()) {
      if (o.getOldest() != null && o.getDbNow() != null) {
        Duration age = Duration.between(o.getOldest(), o.getDbNow());
        oldest = oldest == null || age.compareTo(oldest) > 0 ? age : oldest;
      }
    }
    // The store has no per-group count of dead letters; its payload-free listing, bounded, is the
    // closest existing query.
    List<DeadLetterRow> parked =
        ops.listDeadLetters(
            new DeadLetterQuery(
                null,
                List.of(DeadLetterStatus.PARKED.name()),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                parkedScanLimit));
    Map<String, Long> byGroup = new TreeMap<>();
    parked.forEach(r -> byGroup.merge(r.getConsumerGroup(), 1L, Long::sum));
    return new TxmsgBacklog(pending, oldest, dead, byGroup, parked.size() >= parkedScanLimit);
  }
}
