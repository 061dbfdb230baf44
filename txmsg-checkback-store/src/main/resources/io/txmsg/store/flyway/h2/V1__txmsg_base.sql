-- txmsg schema V1 (h2), for a Flyway instance of its own (docs/architecture.md,
-- "Flyway-ready copies"). Placeholder txmsg_prefix: the table prefix, "txmsg_" unless the
-- application configured another; it must match [a-z][a-z0-9_]{0,23}.
--
-- The same statements, in the same order, as `txmsg schema apply` runs on an empty database (the
-- migrator's files io/txmsg/store/schema/h2-version-table.sql and
-- io/txmsg/store/schema/h2-V1__txmsg.sql, and the version row SchemaScripts writes);
-- FlywaySchemaTest fails when they differ. The version row says 0 until V1's last statement: if
-- this migration stops halfway (DDL commits by itself on MariaDB and H2), txmsg reads "an install
-- began and did not complete V1", not V1 (docs/runbook.md section 10, "Flyway", says what then).
-- Never edit this file: Flyway checksums it.

CREATE TABLE ${txmsg_prefix}schema (
  name        VARCHAR(64)  NOT NULL,
  version     INT          NOT NULL,
  applied_at  TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}schema_pk PRIMARY KEY (name)
)
;
INSERT INTO ${txmsg_prefix}schema (name, version, applied_at) VALUES ('txmsg', 0, LOCALTIMESTAMP)
;
-- One row per producer attempt: the fence the check-back uses. Small and short-lived.
CREATE TABLE ${txmsg_prefix}attempt (
  attempt_id    VARCHAR(64)  NOT NULL,
  event_id      VARCHAR(64)  NOT NULL,
  store_id      VARCHAR(64)  NOT NULL,
  state         VARCHAR(16)  NOT NULL,
  created_at    TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}attempt_pk PRIMARY KEY (attempt_id)
)
;
CREATE INDEX ${txmsg_prefix}attempt_created_ix ON ${txmsg_prefix}attempt (created_at)
;
-- One row per committed event: the idempotency point, the outbox, what people inspect.
CREATE TABLE ${txmsg_prefix}journal (
  event_id            VARCHAR(64)   NOT NULL,
  attempt_id          VARCHAR(64)   NOT NULL,
  store_id            VARCHAR(64)   NOT NULL,
  aggregate_type      VARCHAR(64)   NOT NULL,
  aggregate_id        VARCHAR(128)  NOT NULL,
  aggregate_version   BIGINT        NOT NULL,
  event_type          VARCHAR(64)   NOT NULL,
  event_version       INT           NOT NULL,
  destination         VARCHAR(127)  NOT NULL,
  tag                 VARCHAR(128),
  message_key         VARCHAR(128),
  business_key        VARCHAR(128),
  payload             VARBINARY NOT NULL,
  payload_hash        CHAR(64)      NOT NULL,
  content_type        VARCHAR(64),
  headers             CHARACTER LARGE OBJECT,
  status              VARCHAR(16)   NOT NULL,
  owner_token         VARCHAR(64),
  lease_until         TIMESTAMP(3),
  retry_count         INT           NOT NULL DEFAULT 0,
  next_retry_at       TIMESTAMP(3) NOT NULL,
  checkback_count     INT           NOT NULL DEFAULT 0,
  last_checkback_at   TIMESTAMP(3),
  broker_message_id   VARCHAR(128),
  last_error_code     VARCHAR(64),
  last_error_message  VARCHAR(1000),
  created_at          TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  sent_at             TIMESTAMP(3),
  updated_at          TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}journal_pk PRIMARY KEY (event_id)
)
;
CREATE INDEX ${txmsg_prefix}journal_due_ix ON ${txmsg_prefix}journal (status, next_retry_at)
;
CREATE INDEX ${txmsg_prefix}journal_aggregate_ix ON ${txmsg_prefix}journal (aggregate_type, aggregate_id, aggregate_version)
;
CREATE INDEX ${txmsg_prefix}journal_business_key_ix ON ${txmsg_prefix}journal (business_key)
;
CREATE INDEX ${txmsg_prefix}journal_created_ix ON ${txmsg_prefix}journal (created_at)
;
-- Consumer side: one row per (group, event); the unique key is the dedup claim.
CREATE TABLE ${txmsg_prefix}consume_log (
  consumer_group     VARCHAR(64)   NOT NULL,
  event_id           VARCHAR(64)   NOT NULL,
  event_type         VARCHAR(64),
  request_hash       CHAR(64)      NOT NULL,
  status             VARCHAR(16)   NOT NULL,
  result_ref         VARCHAR(256),
  attempt            INT           NOT NULL DEFAULT 0,
  first_received_at  TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  updated_at         TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}consume_log_pk PRIMARY KEY (consumer_group, event_id)
)
;
CREATE INDEX ${txmsg_prefix}consume_log_status_ix ON ${txmsg_prefix}consume_log (status, updated_at)
;
CREATE TABLE ${txmsg_prefix}aggregate_version (
  consumer_group        VARCHAR(64)   NOT NULL,
  aggregate_type        VARCHAR(64)   NOT NULL,
  aggregate_id          VARCHAR(128)  NOT NULL,
  last_applied_version  BIGINT,
  last_event_id         VARCHAR(64),
  updated_at            TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}aggregate_version_pk PRIMARY KEY (consumer_group, aggregate_type, aggregate_id)
)
;
CREATE TABLE ${txmsg_prefix}dead_letter (
  consumer_group     VARCHAR(64)   NOT NULL,
  event_id           VARCHAR(64)   NOT NULL,
  request_hash       CHAR(64)      NOT NULL,
  kind               VARCHAR(16)   NOT NULL,
  status             VARCHAR(20)   NOT NULL,
  reason             VARCHAR(32)   NOT NULL,
  business_key       VARCHAR(128),
  event_type         VARCHAR(64),
  aggregate_type     VARCHAR(64),
  aggregate_id       VARCHAR(128),
  aggregate_version  BIGINT,
  topic              VARCHAR(127),
  broker_message_id  VARCHAR(128),
  attempt            INT           NOT NULL DEFAULT 0,
  error_class        VARCHAR(255),
  error_message      VARCHAR(1000),
  payload            VARBINARY,
  headers            CHARACTER LARGE OBJECT,
  origin_time        TIMESTAMP(3),
  replay_request_id  VARCHAR(64),
  created_at         TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  updated_at         TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}dead_letter_pk PRIMARY KEY (consumer_group, event_id, request_hash)
)
;
CREATE INDEX ${txmsg_prefix}dead_letter_status_ix ON ${txmsg_prefix}dead_letter (status, created_at)
;
-- The replay worker reads the rows of one request.
CREATE INDEX ${txmsg_prefix}dead_letter_replay_ix ON ${txmsg_prefix}dead_letter (replay_request_id)
;
CREATE INDEX ${txmsg_prefix}dead_letter_business_key_ix ON ${txmsg_prefix}dead_letter (business_key)
;
CREATE TABLE ${txmsg_prefix}replay_audit (
  request_id       VARCHAR(64)   NOT NULL,
  operator         VARCHAR(128)  NOT NULL,
  reason           VARCHAR(1000) NOT NULL,
  consumer_group   VARCHAR(64),
  selector         VARCHAR(2000) NOT NULL,
  rate_per_second  INT           NOT NULL,
  canary           INT           NOT NULL DEFAULT 0,
  max_failure_ratio DECIMAL(5,4),
  dry_run          BOOLEAN       NOT NULL,
  status           VARCHAR(16)   NOT NULL,
  requested_at     TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  finished_at      TIMESTAMP(3),
  selected         INT           NOT NULL DEFAULT 0,
  succeeded        INT           NOT NULL DEFAULT 0,
  failed           INT           NOT NULL DEFAULT 0,
  stopped_reason   VARCHAR(255),
  CONSTRAINT ${txmsg_prefix}replay_audit_pk PRIMARY KEY (request_id)
)
;
CREATE INDEX ${txmsg_prefix}replay_audit_status_ix ON ${txmsg_prefix}replay_audit (status, requested_at)
;
CREATE TABLE ${txmsg_prefix}command (
  command_id       VARCHAR(64)   NOT NULL,
  consumer_group   VARCHAR(64)   NOT NULL,
  event_id         VARCHAR(64)   NOT NULL,
  seq              INT           NOT NULL,
  command_type     VARCHAR(64)   NOT NULL,
  payload          VARBINARY,
  status           VARCHAR(16)   NOT NULL,
  owner_token      VARCHAR(64),
  lease_until      TIMESTAMP(3),
  attempts         INT           NOT NULL DEFAULT 0,
  next_attempt_at  TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  last_error       VARCHAR(1000),
  created_at       TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  updated_at       TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}command_pk PRIMARY KEY (command_id),
  CONSTRAINT ${txmsg_prefix}command_seq_uk UNIQUE (consumer_group, event_id, seq)
)
;
CREATE INDEX ${txmsg_prefix}command_due_ix ON ${txmsg_prefix}command (status, next_attempt_at)
;
-- Archive twins (same columns plus archived_at, same primary keys): terminal rows moved here
-- by io.txmsg.store.Archiver in bounded batches. Defaults are dropped on purpose: an archived
-- row keeps the values it had; only archived_at is set by the move.
CREATE TABLE ${txmsg_prefix}journal_archive (
  event_id            VARCHAR(64)   NOT NULL,
  attempt_id          VARCHAR(64)   NOT NULL,
  store_id            VARCHAR(64)   NOT NULL,
  aggregate_type      VARCHAR(64)   NOT NULL,
  aggregate_id        VARCHAR(128)  NOT NULL,
  aggregate_version   BIGINT        NOT NULL,
  event_type          VARCHAR(64)   NOT NULL,
  event_version       INT           NOT NULL,
  destination         VARCHAR(127)  NOT NULL,
  tag                 VARCHAR(128),
  message_key         VARCHAR(128),
  business_key        VARCHAR(128),
  payload             VARBINARY NOT NULL,
  payload_hash        CHAR(64)      NOT NULL,
  content_type        VARCHAR(64),
  headers             CHARACTER LARGE OBJECT,
  status              VARCHAR(16)   NOT NULL,
  owner_token         VARCHAR(64),
  lease_until         TIMESTAMP(3),
  retry_count         INT           NOT NULL,
  next_retry_at       TIMESTAMP(3) NOT NULL,
  checkback_count     INT           NOT NULL,
  last_checkback_at   TIMESTAMP(3),
  broker_message_id   VARCHAR(128),
  last_error_code     VARCHAR(64),
  last_error_message  VARCHAR(1000),
  created_at          TIMESTAMP(3) NOT NULL,
  sent_at             TIMESTAMP(3),
  updated_at          TIMESTAMP(3) NOT NULL,
  archived_at         TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}journal_archive_pk PRIMARY KEY (event_id)
)
;
CREATE TABLE ${txmsg_prefix}consume_log_archive (
  consumer_group     VARCHAR(64)   NOT NULL,
  event_id           VARCHAR(64)   NOT NULL,
  event_type         VARCHAR(64),
  request_hash       CHAR(64)      NOT NULL,
  status             VARCHAR(16)   NOT NULL,
  result_ref         VARCHAR(256),
  attempt            INT           NOT NULL,
  first_received_at  TIMESTAMP(3) NOT NULL,
  updated_at         TIMESTAMP(3) NOT NULL,
  archived_at        TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}consume_log_archive_pk PRIMARY KEY (consumer_group, event_id)
)
;
CREATE TABLE ${txmsg_prefix}attempt_archive (
  attempt_id    VARCHAR(64)  NOT NULL,
  event_id      VARCHAR(64)  NOT NULL,
  store_id      VARCHAR(64)  NOT NULL,
  state         VARCHAR(16)  NOT NULL,
  created_at    TIMESTAMP(3) NOT NULL,
  archived_at   TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}attempt_archive_pk PRIMARY KEY (attempt_id)
)
;
UPDATE ${txmsg_prefix}schema SET version = 1, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 0
;
