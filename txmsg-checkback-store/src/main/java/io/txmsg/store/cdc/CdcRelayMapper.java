package io.txmsg.store.cdc;

import io.txmsg.store.journal.JournalStatus;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.annotations.Param;

/**
 * Statements of the CDC relay (module txmsg-cdc): its lease, its offsets and schema history (schema
 * V4), the journal updates it makes, and the server settings it checks at start. SQL in {@code
 * io/txmsg/store/mapper/CdcRelayMapper.xml}, per dialect where it differs. Callers go through
 * {@link CdcRelayStore}, which runs each in a short transaction of its own.
 *
 * <p>Every write of a relay carries its fence (store id, owner token, lease generation) and matches
 * 0 rows once another instance has taken the lease over.
 */
public interface CdcRelayMapper {
  // ---- lease ------------------------------------------------------------------------------------

  RelayLeaseRow selectLease(@Param("storeId") String storeId);

  /** The first lease of a store: generation 1. Duplicate key when another instance was first. */
  int insertLease(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis,
      @Param("ownerInfo") String ownerInfo);

  /** Takes a released or expired lease: generation + 1. 0 rows: someone holds it. */
  int takeLease(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("leaseMillis") long leaseMillis,
      @Param("ownerInfo") String ownerInfo);

  /** Extends the holder's lease. 0 rows: the lease was taken over. */
  int renewLease(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("leaseMillis") long leaseMillis);

  /** Gives the lease up (another instance may take it at once). */
  int releaseLease(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation);

  // ---- offsets ----------------------------------------------------------------------------------

  /** The stored offsets JSON; null when there is no row or the offsets were cleared. */
  String selectOffsets(@Param("storeId") String storeId);

  int updateOffsets(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("offsets") String offsets);

  /** The offset row of a store written for the first time; 0 rows when fenced. */
  int insertOffsets(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("offsets") String offsets);

  // ---- schema history (MariaDB/MySQL) -----------------------------------------------------------

  /** The records in the order they were stored. */
  List<String> selectHistory(@Param("storeId") String storeId);

  /** The highest seq of the store's history, or null when it has none. */
  Long maxHistorySeq(@Param("storeId") String storeId);

  int insertHistory(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("seq") long seq,
      @Param("record") String record);

  int deleteHistory(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation);

  // ---- journal ----------------------------------------------------------------------------------

  /**
   * PENDING, SENDING or RETRY CDC rows among these become SENT, each with its broker message id
   * ({@code brokerMessageIds}: event id → message id), in one statement.
   */
  int markSent(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("brokerMessageIds") Map<String, String> brokerMessageIds);

  /** A PENDING CDC row becomes DEAD with the error. */
  int markDead(
      @Param("storeId") String storeId,
      @Param("ownerToken") String ownerToken,
      @Param("generation") long generation,
      @Param("eventId") String eventId,
      @Param("errorCode") String errorCode,
      @Param("errorMessage") String errorMessage);

  /**
   * The rows that hold a FIFO row back (the reconciler's order rule): a lower aggregate_version of
   * its aggregate in its store that is PENDING, SENDING, RETRY or DEAD, and another row of its
   * message group SENDING under a live lease.
   */
  List<String> orderBlockers(
      @Param("storeId") String storeId,
      @Param("eventId") String eventId,
      @Param("aggregateType") String aggregateType,
      @Param("aggregateId") String aggregateId,
      @Param("aggregateVersion") long aggregateVersion,
      @Param("messageGroup") String messageGroup);

  /**
   * The rows among these that are settled (neither PENDING, SENDING nor RETRY). A row not returned
   * is unsent, or not visible to this transaction yet.
   */
  List<String> settledAmong(@Param("eventIds") java.util.Collection<String> eventIds);

  /** The journal row's status, or null when there is none (or it is not visible yet). */
  JournalStatus journalStatus(@Param("eventId") String eventId);

  // ---- operations (CLI, metrics) ----------------------------------------------------------------

  /** The store's CDC rows not SENT yet: count, oldest created_at, the database clock. */
  CdcBacklog cdcBacklog(@Param("storeId") String storeId);

  /** PostgreSQL: the slot's lag in bytes of WAL, or null when the slot does not exist. */
  SlotLag slotLag(@Param("name") String name);

  /** 1 when a relay of the store holds a live lease (by the database clock), else 0. */
  int liveLeases(@Param("storeId") String storeId);

  /**
   * An operator's reset: deletes the store's stored offsets, unless a relay holds a live lease
   * (returns 0 rows then, and also when there were none).
   */
  int clearOffsetsUnleased(@Param("storeId") String storeId);

  /** The operator's reset of the schema history (MariaDB/MySQL), under the same condition. */
  int clearHistoryUnleased(@Param("storeId") String storeId);

  // ---- server settings (start-time checks) ------------------------------------------------------

  /** PostgreSQL: current_schema(); MariaDB/MySQL: DATABASE(). */
  String currentSchema();

  /** PostgreSQL: current_database(); MariaDB/MySQL: DATABASE(). */
  String currentDatabase();

  /** PostgreSQL: the server's wal_level. */
  String walLevel();

  /** PostgreSQL: whether the current role may open a replication connection. */
  Boolean canReplicate();

  /** PostgreSQL: the publication, or null. */
  PublicationRow selectPublication(@Param("name") String name);

  /** PostgreSQL: the tables of a publication, as schema.table. */
  List<String> publicationTables(@Param("name") String name);

  /**
   * PostgreSQL: creates the relay's publication (names validated by the caller: identifiers cannot
   * be bound).
   */
  void createPublication(@Param("name") String name, @Param("table") String qualifiedTable);

  /** PostgreSQL: the replication slot, or null. */
  SlotRow selectSlot(@Param("name") String name);

  /** PostgreSQL: replication slots in use and the server's max_replication_slots. */
  SlotCapacity slotCapacity();

  /** PostgreSQL: ends another backend (a stale relay's walsender). */
  Boolean terminateBackend(@Param("pid") int pid);

  /** PostgreSQL: drops a replication slot that is not active. */
  void dropSlot(@Param("name") String name);

  /** MariaDB/MySQL: log_bin, binlog_format, binlog_row_image, server_id. */
  BinlogSettings binlogSettings();

  /** MariaDB/MySQL: the binary log files the server still has (SHOW BINARY LOGS). */
  List<String> binaryLogs();

  /** MariaDB/MySQL: the global privileges of the current user. */
  List<String> globalPrivileges();
}
