# One image for every app service of docker-compose.yml; each service picks its entry point
# (`node apps/<app>/dist/main.js`, `node packages/db/dist/migrate.js` for the migrate step).

# The build stage has every dependency, dev ones included: esbuild bundles the apps, prisma
# generates the client they inline.
FROM node:20-bookworm-slim AS build

RUN npm install -g pnpm@10.34.9 && npm cache clean --force

# pkcs11js (HSM custody) is compiled at install, against the image's own Node headers
# (/usr/local/include/node, so node-gyp downloads none): it needs a compiler and Python here only.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local

WORKDIR /src

# Fetch every package from the lockfile alone, so this layer is reused until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile

COPY . .
# Dependency install scripts stay off (pnpm-workspace.yaml: onlyBuiltDependencies), so nothing
# downloads during install. assemble.ts lays out /app: the bundles, the migrations and the few
# packages the bundles load at run time (runtime/package.json), installed for production.
RUN pnpm install --frozen-lockfile --offline \
 && bash scripts/generate.sh \
 && pnpm build \
 && pnpm exec tsx scripts/build/assemble.ts /app

# The image that runs: node, the bundles and production dependencies only (no TypeScript, tsx,
# esbuild or Prisma CLI).
FROM node:20-bookworm-slim

WORKDIR /app
COPY --from=build /app ./

ENV NODE_ENV=production
# Memory sizing: the same as APP_NODE_FLAGS and APP_ENV in packages/core/src/memory.ts.
ENV NODE_OPTIONS=--max-semi-space-size=16
ENV MALLOC_ARENA_MAX=2
USER node
EXPOSE 3000
CMD ["node", "apps/gateway/dist/main.js"]
