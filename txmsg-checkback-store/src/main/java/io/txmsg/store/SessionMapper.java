package io.txmsg.store;

import org.apache.ibatis.annotations.Param;

/**
 * Statements on the database session rather than on txmsg rows (SQL in SessionMapper.xml): the
 * bounded lock wait of the fencing insert, the reconciler's JIT switch, and the locks that
 * serialise schema upgrades. Which of them a database uses is {@link Dialect}'s business. The
 * schema lock names include the database/schema and the table prefix: two prefixes, or two schemas
 * of one PostgreSQL database, upgrade independently.
 */
interface SessionMapper {
  /** H2: session LOCK_TIMEOUT; PostgreSQL: SET LOCAL lock_timeout. Not for MySQL. */
  void setLockTimeout(@Param("lockWaitMillis") long lockWaitMillis);

  /** H2 only: the session's current LOCK_TIMEOUT, to restore it after the fence. */
  Long currentLockTimeout();

  /**
   * PostgreSQL only: no JIT compilation for the rest of this transaction ({@code SET LOCAL jit =
   * off}); see {@link Dialect#planWithoutJit}.
   */
  void planWithoutJit();

  /** PostgreSQL: takes the session-level advisory lock if free; never waits. */
  Boolean tryAdvisoryLock();

  /** PostgreSQL: releases what {@link #tryAdvisoryLock} took. */
  Boolean advisoryUnlock();

  /** MariaDB/MySQL: GET_LOCK, waiting up to {@code seconds}; 1 taken, 0 timed out, null error. */
  Integer getLock(@Param("seconds") long seconds);

  /** MariaDB/MySQL: RELEASE_LOCK of what {@link #getLock} took. */
  Integer releaseLock();

  /** H2: inserts the lock row; the caller never commits it (see {@link Dialect#H2}). */
  int insertLockRow();
}
