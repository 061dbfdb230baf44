-- The opt-in business-key index of the txmsg journal (schema V6 made it opt-in): it serves the
-- operators' searches by business key (`txmsg trace <businessKey>`, `txmsg journal list
-- --business-key`) and costs every journal insert. `txmsg schema business-key-index` runs this
-- statement; a Flyway or Liquibase user can copy it into a migration of their own (replace the
-- placeholder txmsg_prefix with the table prefix). IF NOT EXISTS: running it twice does nothing.
-- CONCURRENTLY: producers keep inserting while it builds. It cannot run inside a transaction
-- block (a Flyway migration holding it must not be transactional), and an interrupted build
-- leaves an INVALID index of this name that IF NOT EXISTS then skips: drop it and run again
-- (`txmsg schema business-key-index` checks that the index is valid afterwards).
CREATE INDEX CONCURRENTLY IF NOT EXISTS ${txmsg_prefix}journal_business_key_ix ON ${txmsg_prefix}journal (business_key)
;
