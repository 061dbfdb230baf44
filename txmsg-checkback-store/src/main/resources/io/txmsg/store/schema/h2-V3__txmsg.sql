-- txmsg schema version 3 for h2: the archive audit table. ${prefix} is replaced by the
-- configured table prefix. Statements are separated by lines holding only ';'. Additive and
-- online: a release that only knows V2 keeps running on V3 (it never names this table). Applied by
-- SchemaInstaller / `txmsg schema apply`, which records the version in ${prefix}schema
-- (docs/architecture.md, "Schema versions"). A new, empty table: no lock on any existing one.

-- One row per archive run (io.txmsg.store.Archiver, `txmsg archive`): who, why, what mode, and how
-- many rows each table gave up. The run's row is written RUNNING before its first batch, each
-- batch adds its rows in the batch's own transaction (so the counts are exactly what committed,
-- even when the run dies), and the end sets DONE or FAILED with the error. A row left RUNNING
-- belongs to a run that died or is still going. Dry runs change nothing and are not recorded.
CREATE TABLE ${prefix}archive_run (
  run_id            VARCHAR(36)  NOT NULL,
  operator          VARCHAR(128) NOT NULL,
  reason            VARCHAR(512) NOT NULL,
  mode              VARCHAR(16)  NOT NULL,
  status            VARCHAR(16)  NOT NULL,
  journal_rows      BIGINT       NOT NULL DEFAULT 0,
  consume_log_rows  BIGINT       NOT NULL DEFAULT 0,
  attempt_rows      BIGINT       NOT NULL DEFAULT 0,
  error_message     VARCHAR(512),
  started_at        TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  finished_at       TIMESTAMP(3),
  CONSTRAINT ${prefix}archive_run_pk PRIMARY KEY (run_id)
)
;
-- Serves the one query on this table, "the newest runs first" (ArchiveMapper.recentRuns,
-- `txmsg archive-runs`).
CREATE INDEX ${prefix}archive_run_started_ix ON ${prefix}archive_run (started_at)
;
