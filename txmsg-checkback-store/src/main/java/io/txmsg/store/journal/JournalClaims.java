package io.txmsg.store.journal;

import io.txmsg.store.Dialect;
import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.StoreTransactions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Claims due journal rows for one reconciler round: PENDING/RETRY rows past next_retry_at and
 * SENDING rows whose lease expired become SENDING with a fresh owner token and lease, in short
 * transactions of their own. How the candidates are read and locked differs per {@link Dialect}
 * (FOR UPDATE SKIP LOCKED where it honours LIMIT, then one UPDATE for the batch; conditional claims
 * one by one on H2). Either way a row claimed by a concurrent round is simply not returned: it is
 * locked and skipped, or its conditional UPDATE matches nothing.
 */
public final class JournalClaims {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  private final String storeId;

  /**
   * Claims on the txmsg tables of {@code store} in {@code dataSource}, of the rows written by the
   * store {@code storeId} only: stores sharing the tables may publish through different brokers.
   */
  public JournalClaims(DataSource dataSource, TxmsgStore store, String storeId) {
    this.store = store;
    this.storeId = storeId;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /**
   * Claims up to {@code batchSize} due rows for {@code ownerToken} with a lease of {@code
   * leaseMillis}.
   *
   * @return the claimed rows as they are after the claim (SENDING, owned by {@code ownerToken}),
   *     oldest next_retry_at first; every later update of them must match {@code ownerToken}
   * @throws Exception what the database threw; rows already claimed keep their lease and are taken
   *     over when it expires
   */
  public List<JournalRow> claimDue(String ownerToken, long leaseMillis, int batchSize)
      throws Exception {
    return store.dialect().locksClaimCandidates()
        ? claimLocked(ownerToken, leaseMillis, batchSize)
        : claimOneByOne(ownerToken, leaseMillis, batchSize);
  }

  /**
   * Reads the candidates FOR UPDATE SKIP LOCKED and claims them in the same short transaction, so
   * concurrent reconcilers take disjoint rows; the claim is one UPDATE for the whole batch, which
   * returns the claimed rows where the dialect can (else they are read back by owner token).
   */
  private List<JournalRow> claimLocked(String ownerToken, long leaseMillis, int batchSize)
      throws Exception {
    boolean returning = store.dialect().returnsClaimedRows();
    return transactions.run(
        c -> {
          store.planWithoutJit(c);
          return store.on(
              c,
              JournalMapper.class,
              m -> {
                List<String> candidates = new ArrayList<>();
                Set<String> groups = new HashSet<>();
                for (DueRow due : m.selectDue(storeId, batchSize)) {
                  if (oneOfGroupPerBatch(groups, due)) {
                    candidates.add(due.getEventId());
                  }
                }
                if (candidates.isEmpty()) {
                  return List.of();
                }
                List<JournalRow> claimed;
                if (returning) {
                  claimed = m.claimAllReturning(candidates, ownerToken, leaseMillis);
                } else {
                  m.claimAll(candidates, ownerToken, leaseMillis);
                  claimed = m.findOwned(candidates, ownerToken);
                }
                return inCandidateOrder(candidates, claimed);
              });
        });
  }

  /**
   * Candidates read unlocked, each claimed by its conditional UPDATE in a transaction of its own.
   */
  private List<JournalRow> claimOneByOne(String ownerToken, long leaseMillis, int batchSize)
      throws Exception {
    List<DueRow> candidates =
        transactions.run(JournalMapper.class, m -> m.selectDue(storeId, batchSize));
    List<String> claimed = new ArrayList<>();
    Set<String> groups = new HashSet<>();
    for (DueRow due : candidates) {
      String id = due.getEventId();
      if (oneOfGroupPerBatch(groups, due)
          && transactions.run(JournalMapper.class, m -> m.claim(id, ownerToken, leaseMillis))
              == 1) {
        claimed.add(id);
      }
    }
    if (claimed.isEmpty()) {
      return List.of();
    }
    return inCandidateOrder(
        claimed, transactions.run(JournalMapper.class, m -> m.findOwned(claimed, ownerToken)));
  }

  /** The rows sorted as their ids are in {@code order} (the statements return them unordered). */
  private static List<JournalRow> inCandidateOrder(List<String> order, List<JournalRow> rows) {
    Map<String, Integer> position = new HashMap<>();
    for (int i = 0; i < order.size(); i++) {
      position.put(order.get(i), i);
    }
    List<JournalRow> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparingInt(r -> position.getOrDefault(r.getEventId(), order.size())));
    return sorted;
  }

  /**
   * Never two rows of one FIFO message group in flight: the candidate query already excludes rows
   * with a lower unsent version of their aggregate or an in-flight row of their group, but rows of
   * one group and different aggregates (a group the application set) can be due together; the batch
   * takes the first. Locked-but-unclaimed candidates are skipped the same way.
   */
  private static boolean oneOfGroupPerBatch(Set<String> groups, DueRow due) {
    return due.getMessageGroup() == null || groups.add(due.getMessageGroup());
  }
}
