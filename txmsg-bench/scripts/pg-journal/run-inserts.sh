#!/bin/bash
# The producer's database work without a broker, on PostgreSQL: txmsg's inserts (journal with all its
# indexes = full, without the aggregate and business-key indexes = trim, plus attempt and business
# row) against the hand-written baseline's two (raw). Used for docs/benchmarks-findings.md.
# Needs pgbench and a database "test" on 127.0.0.1:5432 (user postgres).
# Example: for i in 1 2; do ./run-inserts.sh full 2500; ./run-inserts.sh trim 2500; ./run-inserts.sh raw 2500; done
set -e; cd "$(dirname "$0")"
V=$1; T=${2:-2000}
P="psql -q -h 127.0.0.1 -U postgres -d test -v ON_ERROR_STOP=1"
$P -v ff=100 -f setup.sql >/dev/null 2>&1
# raw writes only hp and hr (created by setup.sql); full and trim add the journal's indexes
[ "$V" = raw ] || $P -f idx_$V.sql >/dev/null
$P -c "SELECT setval('hs', 1)" >/dev/null
S=tx_txmsg.sql; [ "$V" = raw ] && S=tx_raw.sql
tps=$(pgbench -h 127.0.0.1 -U postgres -n -c 8 -j 2 -t $T -f $S test 2>/dev/null | grep -oP 'tps = \K[0-9.]+' | head -1)
echo "$V tps=$tps"
