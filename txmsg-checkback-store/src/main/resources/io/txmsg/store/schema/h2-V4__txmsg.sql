-- txmsg schema version 4 for h2: the CDC relay's state. ${prefix} is replaced by the
-- configured table prefix. Statements are separated by lines holding only ';'. Additive and
-- online: a release that only knows V3 keeps running on V4 (it never names these tables). Applied
-- by SchemaInstaller / `txmsg schema apply`, which records the version in ${prefix}schema
-- (docs/architecture.md, "Schema versions"). New, empty tables: no lock on any existing one.
-- The journal needs no change: publish_mode (V2) takes the new value 'CDC'
-- (io.txmsg.store.PublishMode).

-- One row per store whose journal a CDC relay reads (module txmsg-cdc): the relay lease. The
-- instance whose owner_token is here and whose lease_until has not passed relays; the others
-- wait. Every acquisition adds 1 to generation, and every write of a relay (offsets, schema
-- history, SENT, DEAD) requires its own token and generation here: a relay that lost the lease
-- changes nothing (docs/architecture.md, "CDC relay").
CREATE TABLE ${prefix}cdc_relay (
  store_id      VARCHAR(64)  NOT NULL,
  owner_token   VARCHAR(64),
  generation    BIGINT       NOT NULL DEFAULT 0,
  lease_until   TIMESTAMP(3),
  owner_info    VARCHAR(255),
  acquired_at   TIMESTAMP(3),
  renewed_at    TIMESTAMP(3),
  CONSTRAINT ${prefix}cdc_relay_pk PRIMARY KEY (store_id)
)
;
-- The relay's position in the database's log (Debezium's offsets, as the JSON its offset store
-- writes), one row per store; generation says which lease wrote it. No row, or offsets NULL: the
-- relay starts at the current end of the log.
CREATE TABLE ${prefix}cdc_offset (
  store_id      VARCHAR(64)  NOT NULL,
  offsets       CHARACTER LARGE OBJECT,
  generation    BIGINT       NOT NULL,
  updated_at    TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${prefix}cdc_offset_pk PRIMARY KEY (store_id)
)
;
-- MariaDB/MySQL only (PostgreSQL's log carries its own table definitions): the connector's
-- schema history, the table definitions it needs to decode the binlog from its offset on, in
-- the order they were recorded (seq), one JSON record each. Another instance taking over reads
-- it from here.
CREATE TABLE ${prefix}cdc_schema_history (
  store_id      VARCHAR(64)  NOT NULL,
  seq           BIGINT       NOT NULL,
  record        CHARACTER LARGE OBJECT NOT NULL,
  generation    BIGINT       NOT NULL,
  created_at    TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${prefix}cdc_schema_history_pk PRIMARY KEY (store_id, seq)
)
;
