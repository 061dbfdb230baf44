package io.txmsg.store.consume;

import io.txmsg.store.TxmsgStore;
import io.txmsg.store.tx.SqlStates;
import io.txmsg.store.tx.StoreTransactions;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;

/**
 * Parked events and payload conflicts ({@code dead_letter}, keyed by group, event id and payload
 * hash, so that a conflict never touches the parked original). Parking writes the consume-log row
 * PARKED and the dead letter together; a replay marks its dead letter REPLAYED in the handler's
 * transaction. Everything else runs in a short transaction of its own and throws what the database
 * threw (the transaction was rolled back).
 */
public final class DeadLetters {
  private final TxmsgStore store;
  private final StoreTransactions transactions;

  public DeadLetters(DataSource dataSource, TxmsgStore store) {
    this.store = store;
    this.transactions = new StoreTransactions(dataSource, store);
  }

  /**
   * Parks an event in a short transaction of its own: the consume-log row PARKED (group, event id,
   * event type, hash and attempt of {@code row}) and the dead letter {@code row} (kind MESSAGE).
   *
   * @return false, with nothing written, when the consume log already has the event (applied,
   *     skipped, or parked before): the existing row decides
   */
  public boolean park(DeadLetterRow row) throws Exception {
    return transactions.run(
        c -> {
          try {
            store.on(
                c,
                ConsumeLogMapper.class,
                m ->
                    m.insertParked(
                        row.getConsumerGroup(),
                        row.getEventId(),
                        row.getEventType(),
                        row.getRequestHash(),
                        row.getAttempt()));
          } catch (RuntimeException ex) {
            if (SqlStates.isDuplicateKey(ex)) {
              return false; // rolled back by the caller of run: nothing was written
            }
            throw ex;
          }
          store.on(c, DeadLetterMapper.class, m -> m.insert(row));
          return true;
        });
  }

  /**
   * Records a conflict dead letter (kind CONFLICT, never touching the consume log) in a short
   * transaction of its own.
   *
   * @return false when the same conflicting payload was recorded before (nothing new)
   */
  public boolean recordConflict(DeadLetterRow row) throws Exception {
    try {
      transactions.run(DeadLetterMapper.class, m -> m.insert(row));
      return true;
    } catch (Exception ex) {
      if (SqlStates.isDuplicateKey(ex)) {
        return false;
      }
      throw ex;
    }
  }

  /**
   * Inside the replay's transaction: PARKED / REPLAY_REQUESTED → REPLAYED with the replay request's
   * id. False when the dead letter moved meanwhile.
   */
  public boolean markReplayed(
      Connection c, String group, String eventId, String requestHash, String replayRequestId) {
    return store.on(
            c,
            DeadLetterMapper.class,
            m -> m.markReplayed(group, eventId, requestHash, replayRequestId))
        == 1;
  }

  /** The replayable dead letter of an event (kind MESSAGE, PARKED or REPLAY_REQUESTED), or null. */
  public DeadLetterRow findReplayable(String group, String eventId) throws Exception {
    return transactions.run(DeadLetterMapper.class, m -> m.findReplayable(group, eventId));
  }

  /** Every dead letter of an event in a group, oldest first. */
  public List<DeadLetterRow> findByEvent(String group, String eventId) throws Exception {
    return transactions.run(DeadLetterMapper.class, m -> m.findByEvent(group, eventId));
  }

  /** Closes a dead letter without applying it (a duplicate found in the archive). */
  public void discard(
      String group, String eventId, String requestHash, String replayRequestId, String note)
      throws Exception {
    transactions.run(
        DeadLetterMapper.class, m -> m.discard(group, eventId, requestHash, replayRequestId, note));
  }

  /** A failed replay leaves the dead letter parked, with the replay's error. */
  public void recordReplayFailure(
      String group, String eventId, String requestHash, String errorClass, String errorMessage)
      throws Exception {
    transactions.run(
        DeadLetterMapper.class,
        m -> m.recordReplayFailure(group, eventId, requestHash, errorClass, errorMessage));
  }
}
