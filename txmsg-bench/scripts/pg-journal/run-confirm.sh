#!/bin/bash
# Measures the journal confirmation UPDATE on PostgreSQL: today's schema (variant A, status in
# journal_due_ix, never HOT) against a narrow table of unsent rows (variant N). Used for
# docs/benchmarks-findings.md, "PostgreSQL confirmation update". Needs pgbench and a database
# "test" on 127.0.0.1:5432 (user postgres); creates and drops the tables hj, hj_unsent.
# Example: for i in 1 2 3; do ./run-confirm.sh A 100 2500; ./run-confirm.sh N 90 2500; done
# Prints one line: insert transactions/s, confirmations/s, WAL bytes per event, updates and HOT updates.
set -e
cd "$(dirname "$0")"
V=$1; FF=$2; N=${3:-2500}   # N transactions per client, 8 clients
P="psql -q -h 127.0.0.1 -U postgres -d test -v ON_ERROR_STOP=1"
$P -v ff=$FF -f setup.sql >/dev/null && $P -f idx_$V.sql > /dev/null
$P -c "CHECKPOINT" >/dev/null
w0=$($P -tAc "select pg_current_wal_lsn()")
it=$(pgbench -h 127.0.0.1 -U postgres -n -c 8 -j 2 -t $N -f ins_$V.sql test 2>/dev/null | grep -oP 'tps = \K[0-9.]+' | head -1)
w1=$($P -tAc "select pg_current_wal_lsn()")
nb=$(( 8 * N / 32 / 8 ))
ct=$(pgbench -h 127.0.0.1 -U postgres -n -c 8 -j 2 -t $nb -f conf_$V.sql test 2>/dev/null | grep -oP 'tps = \K[0-9.]+' | head -1)
w2=$($P -tAc "select pg_current_wal_lsn()")
sleep 1
stats=$($P -tAc "select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname='hj'")
unsent=$($P -tAc "select count(*) from hj where status <> 'SENT'")
ev=$((8 * N))
wi=$($P -tAc "select round(pg_wal_lsn_diff('$w1','$w0') / $ev)")
wc=$($P -tAc "select round(pg_wal_lsn_diff('$w2','$w1') / $ev)")
echo "$V ff=$FF events=$ev insert_tps=$it confirm_batches_per_s=$ct confirm_events_per_s=$(python3 -c "print(round($ct*32))") wal_insert_B_per_event=$wi wal_confirm_B_per_event=$wc upd,hot=$stats left_unsent=$unsent"
