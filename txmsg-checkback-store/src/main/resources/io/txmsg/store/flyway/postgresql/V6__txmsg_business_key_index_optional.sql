-- txmsg schema V6 (postgresql): the journal's business-key index becomes opt-in. Placeholder
-- txmsg_prefix: the table prefix, as for V1.
--
-- Only operators' searches read through journal_business_key_ix (`txmsg trace <businessKey>`,
-- `txmsg journal list --business-key`); no statement of a running producer, consumer or relay
-- does. Every journal insert paid for it, and business keys (order ids, payment ids) rarely
-- arrive in index order, so inserts write all over it: on PostgreSQL, with a million journal rows
-- and right after a checkpoint, it tripled the WAL of a producer's transaction
-- (docs/benchmarks-findings.md, "Journal indexes"). Where operators search by business key,
-- create it again with `txmsg schema business-key-index` or the statement in
-- io/txmsg/store/optional/postgresql/journal_business_key_ix.sql. Without it those searches read
-- the whole journal (the CLI says so).
--
-- Compatible with running instances: instances of a release that only knows V5 never read the
-- index. IF EXISTS: a database whose operator dropped it already passes, and a rerun of an
-- interrupted upgrade too. The dead letters keep their business-key index (few rows, written only
-- when a consumer parks).
--
-- The last statement moves the version row from 5 to 6; a database whose row is not at 5 keeps
-- it, and the txmsg startup check then refuses the schema rather than trusting it.
-- Never edit this file: Flyway checksums it.

DROP INDEX IF EXISTS ${txmsg_prefix}journal_business_key_ix
;
UPDATE ${txmsg_prefix}schema SET version = 6, applied_at = LOCALTIMESTAMP WHERE name = 'txmsg' AND version = 5
;
