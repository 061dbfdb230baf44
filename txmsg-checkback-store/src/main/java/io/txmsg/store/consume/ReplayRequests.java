package io.txmsg.store.consume;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;

/**
 * Replay requests ({@code replay_audit}) and the dead letters they select. An operator's request is
 * written by the CLI in one transaction (select, mark REPLAY_REQUESTED, the audit row: the methods
 * taking a connection); the application's replay worker claims it (REQUESTED → RUNNING), replays
 * the marked rows in aggregate-version order and writes the counts back, each step in a short
 * transaction of its own.
 */
public final class ReplayRequests {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public ReplayRequests(DataSource dataSource, TxmsgStore store) {
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  // ---- the operator's request, on the caller's transaction

  /** The parked MESSAGE dead letters a selector matches (for a dry run and the count). */
  public List<DeadLetterRow> selectParked(Connection c, DeadLetterSelector selector, int limit) {
    return store.on(c, ReplayMapper.class, m -> m.selectParked(selector, limit));
  }

  /** PARKED → REPLAY_REQUESTED for the selector's rows, tagged with the request id. */
  public int markRequested(Connection c, DeadLetterSelector selector, String requestId) {
    return store.on(c, ReplayMapper.class, m -> m.markRequested(selector, requestId));
  }

  /** Writes the audit row of a request (or of a journal re-queue). */
  public void insert(Connection c, ReplayRequestRow row) {
    store.on(c, ReplayMapper.class, m -> m.insertRequest(row));
  }

  /**
   * Stops a request with {@code status} and {@code reason} and releases the rows it did not replay
   * back to PARKED for a later request.
   */
  public void finish(Connection c, String requestId, ReplayStatus status, String reason) {
    store.on(
        c,
        ReplayMapper.class,
        m -> {
          m.releaseRemaining(requestId);
          return m.finishRequest(requestId, status, reason);
        });
  }

  // ---- the replay worker, each in a short transaction of its own

  /** Requests waiting for a worker of one of these groups, oldest first. */
  public List<String> waiting(List<String> groups) throws Exception {
    return transactions.run(ReplayMapper.class, m -> m.selectWaiting(groups));
  }

  /** REQUESTED → RUNNING: exactly one worker gets true. */
  public boolean claim(String requestId) throws Exception {
    return transactions.run(ReplayMapper.class, m -> m.claimRequest(requestId)) == 1;
  }

  /** The audit row of a request, or null. */
  public ReplayRequestRow find(String requestId) throws Exception {
    return transactions.run(ReplayMapper.class, m -> m.findRequest(requestId));
  }

  /** The request's rows still to replay, in aggregate-version order. */
  public List<DeadLetterRow> requestedRows(String requestId, int limit) throws Exception {
    return transactions.run(ReplayMapper.class, m -> m.selectRequested(requestId, limit));
  }

  /** The request's counts so far. */
  public void progress(String requestId, int succeeded, int failed) throws Exception {
    transactions.run(ReplayMapper.class, m -> m.progress(requestId, succeeded, failed));
  }

  /** {@link #finish(Connection, String, ReplayStatus, String)} in a short transaction. */
  public void finish(String requestId, ReplayStatus status, String reason) throws Exception {
    transactions.run(
        c -> {
          finish(c, requestId, status, reason);
          return null;
        });
  }
}
