package io.txmsg.store.cdc;

import java.time.Duration;
import java.time.Instant;

/**
 * A store's CDC rows not SENT yet (PENDING, SENDING, RETRY): how many, the oldest one's origin
 * time, and the database's clock when counted (so the age needs no application clock).
 */
public class CdcBacklog {
  private long pending;
  private Instant oldest;
  private Instant dbNow;

  public long getPending() {
    return pending;
  }

  public void setPending(long pending) {
    this.pending = pending;
  }

  /** The oldest unsent CDC row's created_at; null when there is none. */
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

  /** How old the oldest unsent CDC row is by the database clock; zero when there is none. */
  public Duration oldestAge() {
    if (oldest == null || dbNow == null || dbNow.isBefore(oldest)) {
      return Duration.ZERO;
    }
    return Duration.between(oldest, dbNow);
  }
}
