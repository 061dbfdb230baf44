-- txmsg schema version 2 for postgresql: what the OUTBOX delivery mode needs. ${prefix} is
-- replaced by the configured table prefix. Statements are separated by lines holding only ';'.
-- Additive and online: a release that only knows V1 keeps running on V2 (it never names these
-- columns; its journal inserts get the defaults). Applied by SchemaInstaller / `txmsg schema
-- apply`, which records the version in ${prefix}schema (docs/architecture.md, "Schema versions").
--
-- Cost on PostgreSQL 11+: ADD COLUMN with a constant default (or no default) only changes the
-- catalog: no table rewrite, no index rebuild, whatever the table size. Each ALTER still takes an
-- ACCESS EXCLUSIVE lock on the table for that moment: it waits for transactions already using
-- the table, and statements arriving meanwhile queue behind it. (PostgreSQL 10 and older rewrite
-- the table for a NOT NULL DEFAULT column.) SchemaInstaller runs each statement in a transaction
-- of its own (shortest lock) and treats "already exists" (42P07, 42701) as "this step already
-- ran", the same way on every database, so an interrupted upgrade can simply be run again.

-- How the row is (re)published: HALF_MESSAGE (half message + commit) or SEND (a plain
-- synchronous send); io.txmsg.store.PublishMode. Every row written before V2 was a half message.
ALTER TABLE ${prefix}journal ADD COLUMN publish_mode VARCHAR(16) NOT NULL DEFAULT 'HALF_MESSAGE'
;
-- The FIFO message group; NULL for topics that are not FIFO.
ALTER TABLE ${prefix}journal ADD COLUMN message_group VARCHAR(128)
;
-- The archive twin keeps the same columns. Nullable without a default, like the other archive
-- columns: NULL means "archived before V2, or by a V1 instance still running during the upgrade".
ALTER TABLE ${prefix}journal_archive ADD COLUMN publish_mode VARCHAR(16)
;
ALTER TABLE ${prefix}journal_archive ADD COLUMN message_group VARCHAR(128)
;
-- No new index for the FIFO ordering query ("is a lower aggregate_version of this aggregate in
-- this store still PENDING/SENDING/RETRY?"): journal_aggregate_ix (aggregate_type, aggregate_id,
-- aggregate_version) already serves it as a range scan over that aggregate's lower versions, with
-- store_id and status checked on those few rows (EXPLAIN: Index Scan using journal_aggregate_ix).
-- An index led by store_id would add an equality on a column that is the same for every row of
-- an aggregate, i.e. the same rows read again, plus one more index to maintain on every insert.
