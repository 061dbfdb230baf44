package io.txmsg.store.ops;

import java.time.Instant;

/**
 * The oldest origin time among journal rows of one unfinished status, with the database clock read
 * in the same statement (ages are computed against the database clock, not the operator's).
 */
public class JournalOldest {
  private String status;
  private Instant oldest;
  private Instant dbNow;

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
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
