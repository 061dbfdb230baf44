package io.txmsg.store.ops;

import io.txmsg.store.consume.DeadLetterKind;
import io.txmsg.store.consume.DeadLetterStatus;
import io.txmsg.store.consume.ParkReason;
import java.time.Instant;
import java.util.List;

/**
 * Filters of a dead-letter listing; null or empty filters match everything. A time bound is either
 * relative to the database clock ({@code ...MillisAgo}: "the last 2 hours" must not depend on the
 * operator's clock) or absolute ({@code ...At}); when both are given both apply.
 *
 * @param sinceMillisAgo created_at ≥ database now − this
 * @param untilMillisAgo created_at &lt; database now − this
 */
public record DeadLetterQuery(
    String consumerGroup,
    List<DeadLetterStatus> statuses,
    List<ParkReason> reasons,
    DeadLetterKind kind,
    String eventType,
    String businessKey,
    Long sinceMillisAgo,
    Instant sinceAt,
    Long untilMillisAgo,
    Instant untilAt,
    int limit) {
  public DeadLetterQuery {
    statuses = statuses == null ? List.of() : List.copyOf(statuses);
    reasons = reasons == null ? List.of() : List.copyOf(reasons);
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
  }
}
