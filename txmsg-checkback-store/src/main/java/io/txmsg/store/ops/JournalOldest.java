package io.txmsg.store.ops;

import io.txmsg.store.journal.JournalStatus;
import java.time.Instant;

/**
 * The oldest origin time among journal rows of one unfinished status, with the database clock read
 * in the same statement (ages are computed against the database clock, not the operator's).
 */
public class JournalOldest {
  private JournalStatus status;
  private Instant oldest;
  private Instant dbNow;

  public JournalStatus getStatus() {
    return status;
  }

  public void setStatus(JournalStatus status) {
    this.status = status;
  }

  public Instant getOldest() {
    return oldest;
  }

  public void setOldest(Instant oldest) {
    this.oldest = oldest;
  }

  public Instant getDbNow() {
    return dbNow;
  }

  public void setDbNow(Instant dbNow) {
    this.dbNow = dbNow;
  }
}
