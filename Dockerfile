# One image for every app service of docker-compose.yml; each service picks its entry point.
# Apps run from TypeScript source through tsx, as in development, so there is no build step.
FROM node:20-bookworm-slim

RUN npm install -g pnpm@10.34.9 && npm cache clean --force

WORKDIR /app

# Fetch every package from the lockfile alone, so this layer is reused until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile

COPY . .
# Dependency install scripts stay off (pnpm-workspace.yaml: onlyBuiltDependencies), so nothing
# downloads during install. Dev dependencies are needed: tsx runs the apps, prisma generates.
RUN pnpm install --frozen-lockfile --offline \
 && bash scripts/generate.sh

ENV NODE_ENV=production
# A 64 MB young generation: see APP_NODE_FLAGS in packages/core/src/process.ts.
ENV NODE_OPTIONS=--max-semi-space-size=64
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
