package io.txmsg.store.journal;

/**
 * What happened to an attempt-row insert made in its own short transaction.
 *
 * @param outcome INSERTED, EXISTS (a committed row was there: see {@code existingState}) or LOCKED
 *     (another transaction holds the key: the attempt's own local transaction is still running, or
 *     a zombie session holds it)
 * @param existingState the state found for EXISTS; null if the row vanished meanwhile (archived)
 */
public record AttemptInsert(Outcome outcome, AttemptState existingState) {
  public enum Outcome {
    INSERTED,
    EXISTS,
    LOCKED
  }

  static AttemptInsert inserted() {
    return new AttemptInsert(Outcome.INSERTED, null);
  }

  static AttemptInsert locked() {
    return new AttemptInsert(Outcome.LOCKED, null);
  }

  static AttemptInsert exists(AttemptState state) {
    return new AttemptInsert(Outcome.EXISTS, state);
  }
}
