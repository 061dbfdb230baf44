package io.txmsg.store.ops;

import io.txmsg.store.journal.JournalStatus;
import java.util.List;

/**
 * Filters and keyset page of a journal listing. Null or empty filters match everything. Rows come
 * ordered by (created_at, event_id); {@code afterEventId} continues after that row, so a page stays
 * stable while new rows arrive (an OFFSET would shift under a growing table).
 *
 * @param statuses journal statuses to include; empty = all
 * @param olderThanMillis only rows created before (database now − this); null = no age filter
 * @param afterEventId the last event id of the previous page; null = first page
 * @param limit page size, at least 1
 */
public record JournalQuery(
    List<JournalStatus> statuses,
    String destination,
    String eventType,
    String businessKey,
    Long olderThanMillis,
    String afterEventId,
    int limit) {
  public JournalQuery {
    statuses = statuses == null ? List.of() : List.copyOf(statuses);
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
  }
}
