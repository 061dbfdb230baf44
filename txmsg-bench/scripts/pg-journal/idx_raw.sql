CREATE INDEX hj_due_ix ON hj (status, next_retry_at);
