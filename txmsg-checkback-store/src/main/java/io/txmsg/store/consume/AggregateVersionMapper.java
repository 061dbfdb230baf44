package io.txmsg.store.consume;

import org.apache.ibatis.annotations.Param;

/**
 * The version guard's table (SQL in AggregateVersionMapper.xml). The row is created beforehand in
 * its own short transaction ({@link #insertIfAbsent}); the guard itself is ONE conditional UPDATE
 * inside the handler's transaction that must touch exactly one row.
 */
interface AggregateVersionMapper {
  /**
   * Creates the row with a NULL version unless it exists (PG ON CONFLICT DO NOTHING, MariaDB INSERT
   * IGNORE; H2 plain INSERT, the caller ignores a duplicate key).
   */
  int insertIfAbsent(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId);

  /** Sets the version when it is newer (or none applied yet): 1 row applied, 0 stale. */
  int applyMonotonic(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId,
      @Param("version") long version,
      @Param("eventId") String eventId);

  /** Sets the version when it is exactly last + 1 (or none applied yet): 1 applied, 0 not next. */
  int applyContiguous(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId,
      @Param("version") long version,
      @Param("eventId") String eventId);

  Long lastApplied(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId);

  /**
   * PostgreSQL only ({@code Dialect.upsertsVersionRows()}): inserts the row with this version, or
   * updates it when its last applied version is NULL or lower. 1: applied; 0: not newer.
   */
  int upsertMonotonic(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId,
      @Param("version") long version,
      @Param("eventId") String eventId);

  /**
   * PostgreSQL only: inserts the row with this version, or updates it when its last applied version
   * is NULL or exactly one lower. 1: applied; 0: stale or a gap (the caller reads which).
   */
  int upsertContiguous(
      @Param("group") String group,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId,
      @Param("version") long version,
      @Param("eventId") String eventId);
}
