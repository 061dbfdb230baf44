BEGIN;
INSERT INTO hj (event_id, attempt_id, store_id, aggregate_type, aggregate_id, aggregate_version, event_type, event_version, destination, tag, message_key, business_key, payload, payload_hash, content_type, headers, status, owner_token, lease_until, retry_count, next_retry_at) VALUES (nextval('hs')::text, 'att-'||currval('hs'), 'store-1', 'Payment', 'p-'||currval('hs'), 1, 'PaymentCaptured', 1, 'pay-topic', NULL, 'k', md5(random()::text), '\x7b226964223a22702d303030303030222c22616d6f756e74223a3130302c2263757272656e6379223a22455552222c226163636f756e74223a22616363742d31227d'::bytea, repeat('a',64), 'application/json', NULL, 'PENDING', NULL, NULL, 0, statement_timestamp() + interval '10 minutes');
INSERT INTO ha (attempt_id, event_id, store_id, state) VALUES ('att-'||currval('hs'), currval('hs')::text, 'store-1', 'COMMITTED');
INSERT INTO hp (id, amount) VALUES (currval('hs')::text, 100);
COMMIT;
