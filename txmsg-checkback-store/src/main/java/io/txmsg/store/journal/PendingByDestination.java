package io.txmsg.store.journal;

import java.time.Duration;
import java.time.Instant;

/** Unconfirmed journal rows of one destination and the oldest one's age by the database clock. */
public class PendingByDestination {
  private String destination;
  private long pending;
  private Instant oldest;
  private Instant dbNow;

  public String getDestination() {
    return destination;
  }

  public void setDestination(String destination) {
    this.destination = destination;
  }

  public long getPending() {
    return pending;
  }

  public void setPending(long pending) {
    this.pending = pending;
  }

  public void setOldest(Instant oldest) {
    this.oldest = oldest;
  }

  public void setDbNow(Instant dbNow) {
    this.dbNow = dbNow;
  }

  /** Both times come from the same database session, so the difference is clock-safe. */
  public long getOldestAgeMillis() {
    return oldest == null || dbNow == null ? 0 : Duration.between(oldest, dbNow).toMillis();
  }
}
