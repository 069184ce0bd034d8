#!/usr/bin/env bash
# Validates a compose file offline (default: docker-compose.yml at the repo root). Docker does not
# run on our machines, but Debian's docker-compose (v1.29) parses and type-checks a file against
# the compose schema without a daemon, so CI catches a broken file before a user does.
# Usage: scripts/check-compose.sh [path/to/docker-compose.yml]
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
file="${1:-$root/docker-compose.yml}"

fail() {
  echo "check-compose: $*" >&2
  exit 1
}

[[ -f "$file" ]] || fail "no such file: $file"

if ! command -v docker-compose >/dev/null 2>&1; then
  sudo=""
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "docker-compose is missing and installing it needs root (apt-get install docker-compose)"
    sudo="sudo"
  fi
  echo "check-compose: installing Debian's docker-compose" >&2
  export DEBIAN_FRONTEND=noninteractive
  # --no-install-recommends: the package recommends docker.io, a daemon we neither want nor run.
  # A machine whose package lists are missing or stale needs one `apt-get update` first.
  if ! $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null 2>&1; then
    $sudo apt-get update -qq >/dev/null || fail "apt-get update failed"
    $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null ||
      fail "could not install docker-compose"
  fi
fi

# The file refuses to load without a key-encryption key (`${KEY_ENCRYPTION_KEY:?...}`); any
# well-formed value does for validation, and a real key has no business here.
export KEY_ENCRYPTION_KEY="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
export WEBHOOK_SECRET_KEY="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

if ! output="$(docker-compose -f "$file" config -q 2>&1)"; then
  echo "check-compose: INVALID compose file: $file" >&2
  echo "$output" >&2
  exit 1
fi
echo "check-compose: $file is valid"
