CREATE TABLE hj_unsent (event_id VARCHAR(64) NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL, next_retry_at TIMESTAMP(3) NOT NULL);
CREATE INDEX hj_unsent_due_ix ON hj_unsent (status, next_retry_at);
CREATE INDEX hj_aggregate_ix ON hj (aggregate_type, aggregate_id, aggregate_version);
CREATE INDEX hj_business_key_ix ON hj (business_key);
