-- The schema version of the txmsg tables with this prefix (not part of any version: every install
-- and upgrade makes sure it exists). One row, name 'txmsg', holding the version whose statements
-- all ran; SchemaInstaller writes it after each version. A database with the txmsg tables but
-- without this table was installed by a release before schema versions: it is at version 1.
CREATE TABLE ${prefix}schema (
  name        VARCHAR(64)  NOT NULL,
  version     INT          NOT NULL,
  applied_at  TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3),
  CONSTRAINT ${prefix}schema_pk PRIMARY KEY (name)
)
;
