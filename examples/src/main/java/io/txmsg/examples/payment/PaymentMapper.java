package io.txmsg.examples.payment;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** The payment service's own table; its statements join the txmsg local transaction. */
@Mapper
public interface PaymentMapper {
  @Insert(
      "INSERT INTO payment (order_id, event_id, attempt_id, customer_id, amount_cents, status,"
          + " version) VALUES (#{orderId}, #{eventId}, #{attemptId}, #{customerId}, #{amount},"
          + " 'SUCCEEDED', 1)")
  int insert(
      @Param("orderId") String orderId,
      @Param("eventId") String eventId,
      @Param("attemptId") String attemptId,
      @Param("customerId") String customerId,
      @Param("amount") long amountCents);

  /** Moves the order to {@code version} (from version − 1); 1 row or the caller rolls back. */
  @Update(
      "UPDATE payment SET status = #{status}, version = #{version}"
          + " WHERE order_id = #{orderId} AND version = #{version} - 1")
  int advance(
      @Param("orderId") String orderId,
      @Param("status") String status,
      @Param("version") long version);

  /** The attempt that committed the PaymentSucceeded event {@code eventId}, or null. */
  @Select("SELECT attempt_id FROM payment WHERE event_id = #{eventId}")
  String committedAttempt(@Param("eventId") String eventId);
}
