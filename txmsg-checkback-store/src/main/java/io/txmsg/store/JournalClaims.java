package io.txmsg.store;

import java.util.List;
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
    return store.dialect().claimDue(transactions, storeId, ownerToken, leaseMillis, batchSize);
  }
}
