package io.txmsg.examples.notification;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;

/** The notifications this service decided to send (the SMS itself goes through the outbox). */
@Mapper
public interface NotificationMapper {
  @Insert(
      "INSERT INTO sms_notification (event_id, order_id, phone, idempotency_key, latency_ms,"
          + " applied_at) VALUES (#{eventId}, #{orderId}, #{phone}, #{key}, #{latencyMs},"
          + " #{appliedAt})")
  int insert(
      @Param("eventId") String eventId,
      @Param("orderId") String orderId,
      @Param("phone") String phone,
      @Param("key") String idempotencyKey,
      @Param("latencyMs") Long latencyMs,
      @Param("appliedAt") long appliedAtMillis);
}
