#!/bin/bash
# The journal's secondary indexes on a journal that no longer fits in shared_buffers, on
# PostgreSQL: preloads N0 rows (random business keys, created_at ascending, as a live journal has
# them), builds the variant's indexes (idx_<variant>.sql), then runs txmsg's per-event inserts
# (journal, attempt, business row; a random business key each) with 8 clients. Prints
# transactions/s and WAL bytes per transaction. Used for docs/benchmarks-findings.md, "Journal
# indexes". Needs pgbench and a database "test" on 127.0.0.1:5432 (user postgres).
# SYNC=off runs pgbench's sessions with synchronous_commit=off: no commit waits for its WAL flush,
# so the figure shows the inserts' own work rather than the disk's fsync latency.
# Example: for i in 1 2 3; do for v in full nobk brin nobk_brin; do ./run-indexes.sh $v; done; done
set -e; cd "$(dirname "$0")"
V=$1; N0=${2:-1000000}; T=${3:-2500}
P="psql -q -h 127.0.0.1 -U postgres -d test -v ON_ERROR_STOP=1"
$P -v ff=100 -f setup.sql >/dev/null 2>&1
$P -c "DROP INDEX hj_created_ix" >/dev/null
$P -c "INSERT INTO hj (event_id, attempt_id, store_id, aggregate_type, aggregate_id, aggregate_version, event_type, event_version, destination, message_key, business_key, payload, payload_hash, content_type, status, next_retry_at, created_at, updated_at, sent_at)
  SELECT 'pre-'||g, 'att-pre-'||g, 'store-1', 'Payment', 'p-pre-'||g, 1, 'PaymentCaptured', 1, 'pay-topic', 'k', md5(g::text), '\x7b7d'::bytea, repeat('a',64), 'application/json', 'SENT',
         t, t, t, t FROM (SELECT g, LOCALTIMESTAMP(3) - interval '1 day' + g * interval '50 milliseconds' AS t FROM generate_series(1, $N0) g) s" >/dev/null
$P -c "CREATE INDEX hj_created_ix ON hj (created_at)" >/dev/null
$P -f idx_$V.sql >/dev/null
$P -c "VACUUM ANALYZE hj" -c "CHECKPOINT" >/dev/null
$P -c "SELECT setval('hs', 1)" >/dev/null
w0=$($P -tAc "select pg_current_wal_lsn()")
[ "${SYNC:-on}" = off ] && export PGOPTIONS="-c synchronous_commit=off"
tps=$(pgbench -h 127.0.0.1 -U postgres -n -c 8 -j 2 -t $T -f tx_txmsg_rand.sql test 2>/dev/null | grep -oP 'tps = \K[0-9.]+' | head -1)
w1=$($P -tAc "select pg_current_wal_lsn()")
wal=$($P -tAc "select (pg_wal_lsn_diff('$w1','$w0') / (8 * $T))::int")
echo "$V tps=$tps wal_bytes_per_tx=$wal"
