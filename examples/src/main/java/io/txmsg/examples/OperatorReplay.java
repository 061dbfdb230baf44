package io.txmsg.examples;

import io.txmsg.consumer.ReplayResult;
import io.txmsg.consumer.TxConsumers;
import io.txmsg.examples.events.PaymentEvents;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What an operator does after the fix of the points handler is deployed: select the events the
 * handler rejected (parked with PERMANENT_ERROR) and replay them through the same pipeline, for the
 * points group only. Nothing is resent to the topic, so the other groups see nothing.
 */
final class OperatorReplay {
  private final JdbcTemplate jdbc;
  private final TxConsumers consumers;

  OperatorReplay(JdbcTemplate jdbc, TxConsumers consumers) {
    this.jdbc = jdbc;
    this.consumers = consumers;
  }

  /** Replays every parked PERMANENT_ERROR event of the points group; returns counts by status. */
  Map<ReplayResult.Status, Integer> replayRejectedPoints() {
    List<String> eventIds =
        jdbc.queryForList(
            "SELECT event_id FROM txmsg_dead_letter WHERE consumer_group = ? AND kind = 'MESSAGE'"
                + " AND status = 'PARKED' AND reason = 'PERMANENT_ERROR' ORDER BY aggregate_id",
            String.class,
            PaymentEvents.POINTS);
    String requestId = "fix-" + UUID.randomUUID().toString().substring(0, 8);
    Map<ReplayResult.Status, Integer> counts = new EnumMap<>(ReplayResult.Status.class);
    for (String eventId : eventIds) {
      ReplayResult r = consumers.replay(PaymentEvents.POINTS, eventId, requestId);
      counts.merge(r.status(), 1, Integer::sum);
    }
    return counts;
  }
}
