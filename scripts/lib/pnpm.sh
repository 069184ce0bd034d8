# Sourced by the scripts: sets PNPM to a pnpm of the version package.json pins. A fresh machine
# has only Node and npm (corepack cannot verify pnpm's signing keys here), so npx fetches it.
PNPM_VERSION="$(node -p 'require("./package.json").packageManager.split("@")[1]')"
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
  PNPM=(pnpm)
else
  PNPM=(npx --yes "pnpm@$PNPM_VERSION")
fi
export npm_config_update_notifier=false
