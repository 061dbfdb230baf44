package io.txmsg.examples.payment;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;

/** One row per check-back the payment resolver answered: what operators look at later. */
@Mapper
public interface CheckbackAuditMapper {
  @Insert(
      "INSERT INTO payment_checkback_audit (event_id, attempt_id, check_times, resolution,"
          + " answered_by, answered_at) VALUES (#{eventId}, #{attemptId}, #{checkTimes},"
          + " #{resolution}, #{answeredBy}, #{answeredAt})")
  int insert(
      @Param("eventId") String eventId,
      @Param("attemptId") String attemptId,
      @Param("checkTimes") int checkTimes,
      @Param("resolution") String resolution,
      @Param("answeredBy") String answeredBy,
      @Param("answeredAt") long answeredAtMillis);
}
