CREATE INDEX hj_due_ix ON hj (status, next_retry_at);
CREATE INDEX hj_aggregate_ix ON hj (aggregate_type, aggregate_id, aggregate_version);
DROP INDEX hj_created_ix;
CREATE INDEX hj_created_ix ON hj USING brin (created_at);
