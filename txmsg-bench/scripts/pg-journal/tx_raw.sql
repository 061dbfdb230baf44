BEGIN;
INSERT INTO hp (id, amount) VALUES (nextval('hs')::text, 100);
INSERT INTO hr (event_id, topic, payload, status, created_at) VALUES (currval('hs')::text, 'pay-topic', '{"id":"p-000000","amount":100,"currency":"EUR","account":"acct-1"}', 'NEW', statement_timestamp());
COMMIT;
