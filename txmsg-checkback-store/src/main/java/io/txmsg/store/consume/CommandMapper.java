package io.txmsg.store.consume;

import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * The command outbox (SQL in CommandMapper.xml): recorded in the handler's transaction, claimed by
 * the dispatcher with an owner token and a lease, every transition checked against the token.
 */
interface CommandMapper {
  int insert(@Param("row") CommandRow row);

  /** Candidates, read without locks; each is then claimed by {@link #claim}. */
  List<String> selectDue(@Param("limit") int limit);

  /** PENDING/UNKNOWN and due, or SENDING with an expired lease → SENDING for this owner. */
  int claim(
      @Param("commandId") String commandId,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis);

  CommandRow find(@Param("commandId") String commandId);

  int done(@Param("commandId") String commandId, @Param("ownerToken") String ownerToken);

  /** Back to {@code status} (PENDING or UNKNOWN) for another attempt after {@code delayMillis}. */
  int retry(
      @Param("commandId") String commandId,
      @Param("ownerToken") String ownerToken,
      @Param("status") CommandStatus status,
      @Param("delayMillis") long delayMillis,
      @Param("error") String error);

  int park(
      @Param("commandId") String commandId,
      @Param("ownerToken") String ownerToken,
      @Param("error") String error);

  List<CommandRow> findByEvent(@Param("group") String group, @Param("eventId") String eventId);
}
