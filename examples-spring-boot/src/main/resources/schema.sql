-- The application's own tables, created by Boot's SQL initialization (spring.sql.init) on the
-- embedded H2 database before Hibernate starts, which then validates its entities against them
-- (spring.jpa.hibernate.ddl-auto=validate). The txmsg tables are created by the starter
-- (txmsg.*.auto-create-schema; or its Flyway migrations when Flyway is on the class path).
CREATE TABLE IF NOT EXISTS payment (
  order_id     VARCHAR(64)  NOT NULL PRIMARY KEY,
  event_id     VARCHAR(128) NOT NULL,
  customer_id  VARCHAR(64)  NOT NULL,
  amount_cents BIGINT       NOT NULL,
  created_at   TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL
);

-- No unique key on event_id on purpose: an event applied twice would show as a second row.
CREATE TABLE IF NOT EXISTS points_ledger (
  id          BIGINT AUTO_INCREMENT PRIMARY KEY,
  event_id    VARCHAR(128) NOT NULL,
  order_id    VARCHAR(64)  NOT NULL,
  customer_id VARCHAR(64)  NOT NULL,
  points      BIGINT       NOT NULL,
  credited_at TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL
);
