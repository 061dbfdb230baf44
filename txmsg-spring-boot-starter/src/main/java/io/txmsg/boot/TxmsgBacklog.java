package io.txmsg.boot;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.journal.JournalStatus;
import io.txmsg.store.ops.JournalCount;
import io.txmsg.store.ops.JournalOldest;
import io.txmsg.store.ops.OpsQueries;
import io.txmsg.store.ops.ParkedCount;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * What the txmsg tables hold right now, read with the store's operator queries ({@link
 * OpsQueries}): no SQL of its own, no payloads. Each query is a grouped count over the unsent
 * journal rows or the parked dead letters, served by an index led by status: a check reads the
 * backlog, never the SENT rows that make up most of the table.
 *
 * @param pending journal rows not yet confirmed (PENDING, SENDING, RETRY)
 * @param oldestUnconfirmed age of the oldest of them by the database clock, or null when none
 * @param dead journal rows in DEAD
 * @param parkedByGroup PARKED dead letters per consumer group (groups without any are absent)
 */
record TxmsgBacklog(
    long pending, Duration oldestUnconfirmed, long dead, Map<String, Long> parkedByGroup) {

  private static final Set<JournalStatus> UNCONFIRMED =
      EnumSet.of(JournalStatus.PENDING, JournalStatus.SENDING, JournalStatus.RETRY);

  /** Total PARKED dead letters over all groups. */
  long parked() {
    return parkedByGroup.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Reads the backlog in one short read-only transaction of its own. */
  static TxmsgBacklog read(DataSource dataSource, TxmsgStore store) throws Exception {
    OpsQueries ops = new OpsQueries(store);
    return new StoreTransactions(dataSource, store).run(c -> of(ops, c));
  }

  private static TxmsgBacklog of(OpsQueries ops, Connection connection) {
    long pending = 0;
    long dead = 0;
    for (JournalCount c : ops.unfinishedJournalCounts(connection)) {
      if (UNCONFIRMED.contains(c.getStatus())) {
        pending += c.getCount();
      } else if (c.getStatus() == JournalStatus.DEAD) {
        dead += c.getCount();
      }
    }
    Duration oldest = null;
    for (JournalOldest o : ops.journalOldest(connection)) {
      if (o.getOldest() != null && o.getDbNow() != null) {
        Duration age = Duration.between(o.getOldest(), o.getDbNow());
        oldest = oldest == null || age.compareTo(oldest) > 0 ? age : oldest;
      }
    }
    Map<String, Long> byGroup = new TreeMap<>();
    for (ParkedCount c : ops.parkedCounts(connection)) {
      byGroup.put(c.getConsumerGroup(), c.getCount());
    }
    return new TxmsgBacklog(pending, oldest, dead, byGroup);
  }
}
