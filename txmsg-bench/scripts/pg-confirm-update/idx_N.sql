CREATE TABLE hj_unsent (event_id VARCHAR(64) NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL, next_retry_at TIMESTAMP(3) NOT NULL);
CREATE INDEX hj_unsent_due_ix ON hj_unsent (status, next_retry_at);
