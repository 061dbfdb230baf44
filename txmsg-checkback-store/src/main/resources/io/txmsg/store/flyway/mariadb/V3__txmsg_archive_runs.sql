-- txmsg schema V3 (mariadb): the archive audit table, for a Flyway instance of its own
-- (docs/architecture.md, "Flyway-ready copies"). Placeholder txmsg_prefix: the table prefix, as
-- for V1. Additive and online: instances of a release that only knows V2 keep running on V3.
--
-- The same statements as `txmsg schema apply` runs from V2 (the migrator's file
-- io/txmsg/store/schema/mysql-V3__txmsg.sql, then the version row); FlywaySchemaTest fails when
-- they differ. The last statement moves the version row from 2 to 3; a database whose row is not
-- at 2 keeps it, and the txmsg startup check then refuses the schema rather than trusting it.
-- Never edit this file: Flyway checksums it.

-- One row per archive run (io.txmsg.store.Archiver, `txmsg archive`): who, why, what mode, and how
-- many rows each table gave up. The run's row is written RUNNING before its first batch, each
-- batch adds its rows in the batch's own transaction (so the counts are exactly what committed,
-- even when the run dies), and the end sets DONE or FAILED with the error. A row left RUNNING
-- belongs to a run that died or is still going. Dry runs change nothing and are not recorded.
CREATE TABLE ${txmsg_prefix}archive_run (
  run_id            VARCHAR(36)  NOT NULL,
  operator          VARCHAR(128) NOT NULL,
  reason            VARCHAR(512) NOT NULL,
  mode              VARCHAR(16)  NOT NULL,
  status            VARCHAR(16)  NOT NULL,
  journal_rows      BIGINT       NOT NULL DEFAULT 0,
  consume_log_rows  BIGINT       NOT NULL DEFAULT 0,
  attempt_rows      BIGINT       NOT NULL DEFAULT 0,
  error_message     VARCHAR(512),
  started_at        DATETIME(3) NOT NULL DEFAULT NOW(3),
  finished_at       DATETIME(3),
  CONSTRAINT ${txmsg_prefix}archive_run_pk PRIMARY KEY (run_id)
)
;
-- Serves the one query on this table, "the newest runs first" (ArchiveMapper.recentRuns,
-- `txmsg archive-runs`).
CREATE INDEX ${txmsg_prefix}archive_run_started_ix ON ${txmsg_prefix}archive_run (started_at)
;
UPDATE ${txmsg_prefix}schema SET version = 3, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 2
;
