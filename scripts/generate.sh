#!/usr/bin/env bash
# Generates the Prisma client into packages/db/src/generated. `prisma generate` does not use the
# schema engine, but the CLI insists on finding one before it starts and would try to download
# it; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies it (DESIGN.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$(command -v node)}"
export PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1
exec packages/db/node_modules/.bin/prisma generate --schema prisma/schema.prisma >/dev/null
