package io.txmsg.store.journal;

import org.apache.ibatis.annotations.Param;

/** Statements on the attempt table (SQL in AttemptMapper.xml, per dialect where it differs). */
interface AttemptMapper {
  int insert(
      @Param("attemptId") String attemptId,
      @Param("eventId") String eventId,
      @Param("storeId") String storeId,
      @Param("state") AttemptState state);

  /**
   * The fencing insert with a bounded lock wait. On MariaDB the bound is part of the statement
   * ({@code SET STATEMENT max_statement_time}); H2 and PostgreSQL get it from the session's lock
   * timeout, set in the same short transaction ({@code TxmsgStore.boundLockWait}).
   */
  int insertWithLockWait(
      @Param("attemptId") String attemptId,
      @Param("eventId") String eventId,
      @Param("storeId") String storeId,
      @Param("state") AttemptState state,
      @Param("lockWaitMillis") long lockWaitMillis,
      @Param("lockWaitSeconds") double lockWaitSeconds);

  AttemptState selectState(@Param("attemptId") String attemptId);

  /** The pre-commit self-check: locks and reads this attempt's own row. */
  AttemptState selectStateForUpdate(@Param("attemptId") String attemptId);

  /** Joined publish: this transaction's own COMMITTED row becomes ROLLED_BACK. */
  int markRolledBack(@Param("attemptId") String attemptId);
}
