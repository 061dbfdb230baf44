package io.txmsg.examples.projection;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Update;

/** The search index's view of an order, and the history of what was applied to it. */
@Mapper
public interface ProjectionMapper {
  @Update(
      "UPDATE order_projection SET status = #{status}, version = #{version},"
          + " last_event_id = #{eventId} WHERE order_id = #{orderId}")
  int update(
      @Param("orderId") String orderId,
      @Param("status") String status,
      @Param("version") long version,
      @Param("eventId") String eventId);

  @Insert(
      "INSERT INTO order_projection (order_id, status, version, last_event_id)"
          + " VALUES (#{orderId}, #{status}, #{version}, #{eventId})")
  int insert(
      @Param("orderId") String orderId,
      @Param("status") String status,
      @Param("version") long version,
      @Param("eventId") String eventId);

  @Insert(
      "INSERT INTO order_projection_history (event_id, order_id, status, version, latency_ms,"
          + " applied_at) VALUES (#{eventId}, #{orderId}, #{status}, #{version}, #{latencyMs},"
          + " #{appliedAt})")
  int history(
      @Param("eventId") String eventId,
      @Param("orderId") String orderId,
      @Param("status") String status,
      @Param("version") long version,
      @Param("latencyMs") Long latencyMs,
      @Param("appliedAt") long appliedAtMillis);
}
