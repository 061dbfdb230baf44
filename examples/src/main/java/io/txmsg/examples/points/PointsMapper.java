package io.txmsg.examples.points;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;

/**
 * The loyalty ledger. It has no unique key on purpose: only the consume log stands between a
 * redelivered event and a second credit, and the reconciliation report would see one.
 */
@Mapper
public interface PointsMapper {
  @Insert(
      "INSERT INTO points_ledger (event_id, order_id, customer_id, points, latency_ms,"
          + " applied_at) VALUES (#{eventId}, #{orderId}, #{customerId}, #{points}, #{latencyMs},"
          + " #{appliedAt})")
  int credit(
      @Param("eventId") String eventId,
      @Param("orderId") String orderId,
      @Param("customerId") String customerId,
      @Param("points") long points,
      @Param("latencyMs") Long latencyMs,
      @Param("appliedAt") long appliedAtMillis);
}
