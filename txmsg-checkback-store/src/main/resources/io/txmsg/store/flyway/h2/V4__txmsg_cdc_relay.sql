-- txmsg schema V4 (h2): the CDC relay's state (lease, offsets, schema history), for a Flyway
-- instance of its own (docs/architecture.md, "Flyway-ready copies"). Placeholder txmsg_prefix:
-- the table prefix, as for V1. Additive and online: instances of a release that only knows V3
-- keep running on V4.
--
-- The same statements as `txmsg schema apply` runs from V3 (the migrator's file
-- io/txmsg/store/schema/h2-V4__txmsg.sql, then the version row); FlywaySchemaTest fails when
-- they differ. The last statement moves the version row from 3 to 4; a database whose row is not
-- at 3 keeps it, and the txmsg startup check then refuses the schema rather than trusting it.
-- Never edit this file: Flyway checksums it.

-- One row per store whose journal a CDC relay reads (module txmsg-cdc): the relay lease. The
-- instance whose owner_token is here and whose lease_until has not passed relays; the others
-- wait. Every acquisition adds 1 to generation, and every write of a relay (offsets, schema
-- history, SENT, DEAD) requires its own token and generation here: a relay that lost the lease
-- changes nothing (docs/architecture.md, "CDC relay").
CREATE TABLE ${txmsg_prefix}cdc_relay (
  store_id      VARCHAR(64)  NOT NULL,
  owner_token   VARCHAR(64),
  generation    BIGINT       NOT NULL DEFAULT 0,
  lease_until   TIMESTAMP(3),
  owner_info    VARCHAR(255),
  acquired_at   TIMESTAMP(3),
  renewed_at    TIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}cdc_relay_pk PRIMARY KEY (store_id)
)
;
-- The relay's position in the database's log (Debezium's offsets, as the JSON its offset store
-- writes), one row per store; generation says which lease wrote it. No row, or offsets NULL: the
-- relay starts at the current end of the log.
CREATE TABLE ${txmsg_prefix}cdc_offset (
  store_id      VARCHAR(64)  NOT NULL,
  offsets       CHARACTER LARGE OBJECT,
  generation    BIGINT       NOT NULL,
  updated_at    TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}cdc_offset_pk PRIMARY KEY (store_id)
)
;
-- MariaDB/MySQL only (PostgreSQL's log carries its own table definitions): the connector's
-- schema history, the table definitions it needs to decode the binlog from its offset on, in
-- the order they were recorded (seq), one JSON record each. Another instance taking over reads
-- it from here.
CREATE TABLE ${txmsg_prefix}cdc_schema_history (
  store_id      VARCHAR(64)  NOT NULL,
  seq           BIGINT       NOT NULL,
  record        CHARACTER LARGE OBJECT NOT NULL,
  generation    BIGINT       NOT NULL,
  created_at    TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${txmsg_prefix}cdc_schema_history_pk PRIMARY KEY (store_id, seq)
)
;
UPDATE ${txmsg_prefix}schema SET version = 4, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 3
;
