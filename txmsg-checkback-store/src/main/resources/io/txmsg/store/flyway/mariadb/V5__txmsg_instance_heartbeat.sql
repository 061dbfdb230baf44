-- txmsg schema V5 (mariadb): producer instance heartbeats, for a Flyway instance of its own
-- (docs/architecture.md, "Flyway-ready copies"). Placeholder txmsg_prefix: the table prefix, as for
-- V1. Additive and online: instances of a release that only knows V4 keep running on V5 (they
-- write no instance id, and their rows are never taken over: they wait for republishAfter as
-- before).
--
-- The last statement moves the version row from 4 to 5; a database whose row is not at 4 keeps
-- it, and the txmsg startup check then refuses the schema rather than trusting it.
-- Never edit this file: Flyway checksums it.

-- One row per running producer instance (a TxProducer), beaten every heartbeatInterval with the
-- database clock. An instance whose beat is older than instanceStaleAfter is taken for hung or
-- dead: a live instance of the same store then republishes that instance's committed half-message
-- rows that still wait for their END_TRANSACTION, instead of waiting for the broker's check-backs
-- (which may keep going to the hung instance's open connection) or republishAfter.
-- taken_over_at/taken_over_by record the last takeover pass (at most one per instanceStaleAfter).
CREATE TABLE ${txmsg_prefix}instance (
  instance_id   VARCHAR(64)  NOT NULL,
  store_id      VARCHAR(64)  NOT NULL,
  host          VARCHAR(255),
  started_at    DATETIME(3) NOT NULL,
  beat_at       DATETIME(3) NOT NULL,
  taken_over_at DATETIME(3),
  taken_over_by VARCHAR(64),
  CONSTRAINT ${txmsg_prefix}instance_pk PRIMARY KEY (instance_id)
)
;
CREATE INDEX ${txmsg_prefix}instance_store_ix ON ${txmsg_prefix}instance (store_id, beat_at)
;
-- The instance that committed the row (NULL: written by a release before V5, or by a tool). A
-- takeover moves it to the instance that took the row over, so a row is taken over once per
-- stale owner. No index: the takeover reads the few PENDING rows through journal_due_ix. A
-- nullable column without a default only changes the catalog on PostgreSQL 11+ and is an instant
-- ADD COLUMN on MariaDB 10.3+: no table rewrite.
ALTER TABLE ${txmsg_prefix}journal ADD COLUMN instance_id VARCHAR(64)
;
-- The archive twin keeps the same columns.
ALTER TABLE ${txmsg_prefix}journal_archive ADD COLUMN instance_id VARCHAR(64)
;
UPDATE ${txmsg_prefix}schema SET version = 5, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 4
;
