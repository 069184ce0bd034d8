#!/usr/bin/env bash
# Installs from the lockfile and runs every test: type check, unit tests, and integration tests
# against the real Postgres, Redis and anvil (a fresh database and Redis prefix per run), then the
# fault suite on a private Postgres cluster and private Redis servers.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/pnpm.sh
source scripts/lib/debian-packages.sh
ensure_test_packages
"${PNPM[@]}" install --frozen-lockfile --reporter=silent
bash scripts/generate.sh
echo "== type check"
"${PNPM[@]}" exec tsc -p tsconfig.json
# The console runs in the browser (DOM types, JSX): its own tsconfig.
"${PNPM[@]}" exec tsc -p apps/console/tsconfig.json
echo "== tests"
"${PNPM[@]}" exec jest --ci "$@"
# The transaction, signature and webhook suites again (scripts/pooled-suites.txt), through a
# PgBouncer in transaction mode with DATABASE_POOLER=transaction, including the gateway, tx-worker
# and webhook-worker as processes (docs/operations.md, "Behind PgBouncer"; ~40 s).
if [ "$#" -eq 0 ]; then
  echo "== pooled run (PgBouncer, transaction mode)"
  RELAY_TEST_POOLER=transaction "${PNPM[@]}" exec jest --ci $(cat scripts/pooled-suites.txt)
fi
# The fault suite (docs/reliability.md, ~4 min) runs with the whole test run, not with a filter.
if [ "$#" -eq 0 ]; then
  echo "== fault suite"
  "${PNPM[@]}" exec jest --ci -c jest.faults.config.js
fi
