-- The application's own migration, found by a Flyway instance with the default configuration
-- (classpath:db/migration, flyway_schema_history): FlywaySchemaTest installs txmsg beside it.
CREATE TABLE app_order (
  id     VARCHAR(64) NOT NULL,
  amount BIGINT      NOT NULL,
  CONSTRAINT app_order_pk PRIMARY KEY (id)
);
