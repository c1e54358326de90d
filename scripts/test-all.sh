#!/usr/bin/env bash
# `npm run test:all`: the full tier of D-227, everything `npm test` leaves out: the files of test/tiers.ts
# (the whole conformance runs, the Chromium suites, the process and fault tests), then the storage, admin,
# institutional and webhook storage tests again on a real PostgreSQL server, the Redis pass (D-168 to D-170)
# and the cluster pass (D-183, D-184). PostgreSQL and Redis are throw-away servers on free loopback ports,
# stopped on exit. A part that is not installed stops the run with what to install: never a silent skip.
# With SVCKIT_TEST_REPORT_DIR set, each pass writes its vitest JSON report there and the totals are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
reports=${SVCKIT_TEST_REPORT_DIR:-}
report() { if [ -n "$reports" ]; then echo "$reports/$1.json"; fi; }

need() { echo "test:all: $1 is not installed (Debian: apt-get install $2; .ci/run installs it)" >&2; exit 2; }
command -v chromium >/dev/null 2>&1 || need chromium chromium
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need PostgreSQL postgresql
command -v redis-server >/dev/null 2>&1 || need redis-server redis-server

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# The full tier's files.
node scripts/check-runtime.js
SVCKIT_TEST_REPORT=$(report full) vitest run --project full

# PostgreSQL: a throw-away cluster, owned by the postgres user when this runs as root (initdb refuses root).
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
pgdata=$(mktemp -d /tmp/svckit-pg.XXXXXX)
as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$pgdata"
  as_owner=(runuser -u postgres --)
fi
pgport=$(free_port)
redispid=
cleanup() {
  [ -n "$redispid" ] && kill "$redispid" 2>/dev/null || true
  "${as_owner[@]}" "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$pgdata"
}
trap cleanup EXIT
"${as_owner[@]}" "$pgbin/initdb" -D "$pgdata" -U postgres -A trust >/dev/null
"${as_owner[@]}" "$pgbin/pg_ctl" -D "$pgdata" -o "-p $pgport -k $pgdata -c listen_addresses=127.0.0.1" -w start >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:$pgport/postgres"
SVCKIT_TEST_REPORT=$(report postgres) npm run -s test:postgres

# Redis beside the PostgreSQL server (several instances share both). Files that must stop a Redis to see an
# outage start their own.
redisport=$(free_port)
redis-server --port "$redisport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
redispid=$!
for _ in $(seq 50); do redis-cli -p "$redisport" ping >/dev/null 2>&1 && break; sleep 0.1; done
SVCKIT_TEST_REPORT=$(report redis) REDIS_URL="redis://127.0.0.1:$redisport" npm run -s test:redis
unset DATABASE_URL

# The cluster pass: three `svckit serve` processes on one PostgreSQL, one Redis and one Anvil, each started by
# the tests themselves (test/cluster/harness.ts).
SVCKIT_TEST_REPORT=$(report cluster) npm run -s test:cluster

if [ -n "$reports" ]; then
  node scripts/test-summary.js "$reports/full.json" "$reports/postgres.json" "$reports/redis.json" "$reports/cluster.json"
fi
