#!/usr/bin/env bash
# Quick start: installs from the lockfile, generates the Prisma client, builds the apps (pnpm
# build: the supervisor runs them with node from their dist/ folders), then runs the whole system
# in the foreground (scripts/quickstart/up.ts): local anvil chain, migrations, demo
# project with a funded wallet and an API key, gateway and every worker. Ctrl-C stops it all, as
# do SIGINT, SIGTERM and SIGHUP sent to the `npm start` process alone.
#
# npm passes SIGINT and SIGTERM on to the shell it runs the script with and to nothing below it:
# package.json `exec`s this script in that shell's place and this script `exec`s up.ts in its own,
# so that they reach up.ts. Before that, a step runs in the background and is waited for, because
# bash runs a trap only once a foreground command has ended: a signal during the install would
# wait for it, and a SIGINT would even be dropped if the install then ended well.
set -euo pipefail
cd "$(dirname "$0")/.."

step_pid=""
stop_on() {
  trap - "$1"
  if [ -n "$step_pid" ]; then
    kill -TERM "$step_pid" 2>/dev/null || true
    wait "$step_pid" 2>/dev/null || true
  fi
  kill "-$1" "$$"
}
for signal in INT TERM HUP; do trap "stop_on $signal" "$signal"; done
step() {
  "$@" <&0 & # keeps the terminal as stdin (a background job gets /dev/null): pnpm may ask a question
  step_pid=$!
  wait "$step_pid"
  step_pid=""
}

source scripts/lib/pnpm.sh
step "${PNPM[@]}" install --frozen-lockfile --reporter=silent
step bash scripts/generate.sh
step node --import tsx scripts/build/build.ts
# If the process that ran this script ends first (npm killed, or sent a SIGHUP, which it does not
# pass on), up.ts stops everything: it watches for its parent to differ from this one.
QUICKSTART_PARENT_PID=$PPID exec node --import tsx scripts/quickstart/up.ts
