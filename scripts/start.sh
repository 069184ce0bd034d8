#!/usr/bin/env bash
# Quick start: installs from the lockfile, generates the Prisma client, then runs the whole
# system in the foreground (scripts/quickstart/up.ts): local anvil chain, migrations, demo
# project with a funded wallet and an API key, gateway and every worker. Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/pnpm.sh
"${PNPM[@]}" install --frozen-lockfile --reporter=silent
bash scripts/generate.sh
exec node --import tsx scripts/quickstart/up.ts
