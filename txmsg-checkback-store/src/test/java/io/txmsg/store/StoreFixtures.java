package io.txmsg.store;

import io.txmsg.store.journal.JournalRow;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;

/** Rows the store's tests write. */
public final class StoreFixtures {
  private StoreFixtures() {}

  /** A journal row of store "s", a fresh attempt, payload {1, 2, 3} and one header. */
  public static JournalRow journalRow(String eventId) {
    JournalRow r = new JournalRow();
    r.setEventId(eventId);
    r.setAttemptId(UUID.randomUUID().toString());
    r.setStoreId("s");
    r.setAggregateType("Order");
    r.setAggregateId("o-1");
    r.setAggregateVersion(1);
    r.setEventType("Paid");
    r.setEventVersion(1);
    r.setDestination("payment");
    r.setPayload(new byte[] {1, 2, 3});
    r.setPayloadHash("0".repeat(64));
    r.setCreatedAt(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    r.setHeaders("{\"k\":\"v\"}");
    return r;
  }
}
