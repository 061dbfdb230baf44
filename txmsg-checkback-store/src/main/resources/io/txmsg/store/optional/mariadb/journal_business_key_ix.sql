-- The opt-in business-key index of the txmsg journal (schema V6 made it opt-in): it serves the
-- operators' searches by business key (`txmsg trace <businessKey>`, `txmsg journal list
-- --business-key`) and costs every journal insert. `txmsg schema business-key-index` runs this
-- statement; a Flyway or Liquibase user can copy it into a migration of their own (replace the
-- placeholder txmsg_prefix with the table prefix). IF NOT EXISTS: running it twice does nothing.
-- ALGORITHM=INPLACE, LOCK=NONE: InnoDB builds it while producers keep inserting; MariaDB fails the
-- statement rather than lock the table if it cannot.
CREATE INDEX IF NOT EXISTS ${txmsg_prefix}journal_business_key_ix ON ${txmsg_prefix}journal (business_key) ALGORITHM=INPLACE LOCK=NONE
;
