DROP TABLE IF EXISTS hj, hj_unsent;
DROP SEQUENCE IF EXISTS hs, hc;
CREATE SEQUENCE hs; CREATE SEQUENCE hc;
CREATE TABLE hj (
  event_id VARCHAR(64) NOT NULL, attempt_id VARCHAR(64) NOT NULL, store_id VARCHAR(64) NOT NULL,
  aggregate_type VARCHAR(64) NOT NULL, aggregate_id VARCHAR(128) NOT NULL, aggregate_version BIGINT NOT NULL,
  event_type VARCHAR(64) NOT NULL, event_version INT NOT NULL, destination VARCHAR(127) NOT NULL,
  tag VARCHAR(128), message_key VARCHAR(128), business_key VARCHAR(128), payload BYTEA NOT NULL,
  payload_hash CHAR(64) NOT NULL, content_type VARCHAR(64), headers TEXT, status VARCHAR(16) NOT NULL,
  owner_token VARCHAR(64), lease_until TIMESTAMP(3), retry_count INT NOT NULL DEFAULT 0,
  next_retry_at TIMESTAMP(3) NOT NULL, checkback_count INT NOT NULL DEFAULT 0, last_checkback_at TIMESTAMP(3),
  broker_message_id VARCHAR(128), last_error_code VARCHAR(64), last_error_message VARCHAR(1000),
  created_at TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3), sent_at TIMESTAMP(3),
  updated_at TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3), publish_mode VARCHAR(16) NOT NULL DEFAULT 'HALF_MESSAGE',
  message_group VARCHAR(128), CONSTRAINT hj_pk PRIMARY KEY (event_id)) WITH (fillfactor = :ff);


CREATE INDEX hj_created_ix ON hj (created_at);
DROP TABLE IF EXISTS ha, hp, hr;
CREATE TABLE ha (attempt_id VARCHAR(64) NOT NULL PRIMARY KEY, event_id VARCHAR(64) NOT NULL, store_id VARCHAR(64) NOT NULL, state VARCHAR(16) NOT NULL, created_at TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3), updated_at TIMESTAMP(3) NOT NULL DEFAULT LOCALTIMESTAMP(3));
CREATE INDEX ha_created_ix ON ha (created_at);
CREATE TABLE hp (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL);
CREATE TABLE hr (event_id VARCHAR(64) PRIMARY KEY, topic VARCHAR(127) NOT NULL, payload VARCHAR(2000) NOT NULL, status VARCHAR(16) NOT NULL, created_at TIMESTAMP(3) NOT NULL);
CREATE INDEX hr_status_ix ON hr (status, created_at);
