-- txmsg schema V2 (h2): what the OUTBOX delivery mode needs, for a Flyway instance of its
-- own (docs/architecture.md, "Flyway-ready copies"). Placeholder txmsg_prefix: the table prefix,
-- as for V1. Additive and online: instances of a release that only knows V1 keep running on V2.
--
-- The same statements as `txmsg schema apply` runs from V1 (the migrator's file
-- io/txmsg/store/schema/h2-V2__txmsg.sql, then the version row); FlywaySchemaTest
-- fails when they differ. The last statement moves the version row from 1 to 2; a database whose
-- row is not at 1 keeps it, and the txmsg startup check then refuses the schema rather than
-- trusting it.
-- Never edit this file: Flyway checksums it.
--
-- Cost on H2 2.x: ALTER TABLE ... ADD COLUMN copies the table's rows into a new table under an
-- exclusive table lock (writers wait up to their LOCK_TIMEOUT). H2 serves tests and demos, where
-- the journal is small. Each statement commits by itself, also under Flyway: if this migration
-- fails halfway, follow docs/runbook.md section 10 ("Flyway").

-- How the row is (re)published: HALF_MESSAGE (half message + commit) or SEND (a plain
-- synchronous send); io.txmsg.store.PublishMode. Every row written before V2 was a half message.
ALTER TABLE ${txmsg_prefix}journal ADD COLUMN publish_mode VARCHAR(16) NOT NULL DEFAULT 'HALF_MESSAGE'
;
-- The FIFO message group; NULL for topics that are not FIFO.
ALTER TABLE ${txmsg_prefix}journal ADD COLUMN message_group VARCHAR(128)
;
-- The archive twin keeps the same columns. Nullable without a default, like the other archive
-- columns: NULL means "archived before V2, or by a V1 instance still running during the upgrade".
ALTER TABLE ${txmsg_prefix}journal_archive ADD COLUMN publish_mode VARCHAR(16)
;
ALTER TABLE ${txmsg_prefix}journal_archive ADD COLUMN message_group VARCHAR(128)
;
-- No new index for the FIFO ordering query ("is a lower aggregate_version of this aggregate in
-- this store still PENDING/SENDING/RETRY?"): journal_aggregate_ix (aggregate_type, aggregate_id,
-- aggregate_version) already serves it as a range scan over that aggregate's lower versions, with
-- store_id and status checked on those few rows. An index led by store_id would add an equality
-- on a column that is the same for every row of an aggregate, i.e. the same rows read again,
-- plus one more index to maintain on every insert.
UPDATE ${txmsg_prefix}schema SET version = 2, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 1
;
