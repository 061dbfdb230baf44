SELECT nextval('hc') - 1 AS k \gset
UPDATE hj SET status = 'SENT', sent_at = statement_timestamp(), updated_at = statement_timestamp(), owner_token = NULL, lease_until = NULL
 WHERE status IN ('PENDING','SENDING','RETRY') AND event_id IN (SELECT (:k * 32 + i)::text FROM generate_series(1, 32) i);
