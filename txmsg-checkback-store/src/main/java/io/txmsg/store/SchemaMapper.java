package io.txmsg.store;

import org.apache.ibatis.annotations.Param;

/**
 * The locks that serialise schema upgrades (SQL in SchemaMapper.xml; which of them a database uses
 * is decided by {@link Dialect#lockSchema}). The lock names include the database/schema and the
 * table prefix: two prefixes, or two schemas of one PostgreSQL database, upgrade independently.
 */
interface SchemaMapper {
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
