package io.txmsg.store.consume;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * The consume log: one row per (consumer group, event id), whose primary key is the dedup claim
 * (docs/architecture.md, "The consume log"). The claim, its replay variant and the closing
 * statement run on the connection of the handler's transaction, each a separate call; the reads run
 * in a short transaction of their own. Statements on a caller's connection throw what MyBatis wraps
 * the driver's SQLException in (an unchecked exception; {@link SqlStates} finds the SQLException).
 */
public final class ConsumeLog {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public ConsumeLog(DataSource dataSource, TxmsgStore store) {
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /**
   * The claim, the first statement of the handler's transaction: INSERTs the row with the status it
   * will commit with ({@link ConsumeStatus#SUCCESS}; PROCESSING is never visible outside the
   * claiming transaction). The unique key is the claim, never "select then insert": a concurrent
   * duplicate waits on it.
   *
   * @return false when the key is taken (a concurrent or earlier delivery, or a parked row); the
   *     caller rolls back, as PostgreSQL has aborted the transaction
   */
  public boolean claim(
      Connection c,
      String group,
      String eventId,
      String eventType,
      String requestHash,
      int attempt) {
    try {
      store.on(
          c,
          ConsumeLogMapper.class,
          m ->
              m.insertClaim(
                  group, eventId, eventType, requestHash, ConsumeStatus.SUCCESS, attempt));
      return true;
    } catch (RuntimeException e) {
      if (SqlStates.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * A replay's claim inside the handler's transaction: PARKED → PROCESSING. False when the row is
   * not parked (applied meanwhile, or replayed by another).
   */
  public boolean claimParked(Connection c, String group, String eventId) {
    return store.on(c, ConsumeLogMapper.class, m -> m.claimParked(group, eventId)) == 1;
  }

  /**
   * The claim row's final status and result at the end of the claiming transaction, from {@code
   * claimed} (what the claim wrote). Also the transaction's self-check: false when it touched no
   * row, and it throws in a transaction a swallowed failure aborted.
   */
  public boolean finish(
      Connection c,
      String group,
      String eventId,
      ConsumeStatus claimed,
      ConsumeStatus status,
      String resultRef,
      int attempt) {
    return store.on(
            c,
            ConsumeLogMapper.class,
            m -> m.finish(group, eventId, claimed, status, resultRef, attempt))
        == 1;
  }

  /** The row of an event in a group, or null; in a short transaction of its own. */
  public ConsumeLogRow find(String group, String eventId) throws Exception {
    return transactions.run(ConsumeLogMapper.class, m -> m.find(group, eventId));
  }

  /**
   * The archived row of an event (archived rows are SUCCESS or SKIPPED_STALE), or null; in a short
   * transaction of its own.
   */
  public ConsumeLogRow findArchived(String group, String eventId) throws Exception {
    return transactions.run(ConsumeLogMapper.class, m -> m.findArchived(group, eventId));
  }
}
