#!/usr/bin/env bash
# Debian packages the tests need (SoftHSM2 for the PKCS#11 custody tests, PgBouncer for the pooled run,
# Chromium for the console's browser tests). Sourced by
# scripts/test.sh; `ensure_debian_package <package> <file>` installs <package> with apt-get when
# <file> (a binary or library it provides) is missing. Needs root or passwordless sudo; the
# package lists are refreshed only when an install is needed.

_apt_get() {
  if [ "$(id -u)" -eq 0 ]; then apt-get "$@"; else sudo -n apt-get "$@"; fi
}

_debian_lists_fresh=0

ensure_debian_package() {
  local package="$1" file="$2"
  if [ -e "$file" ] || command -v "$file" >/dev/null 2>&1; then return 0; fi
  echo "== installing Debian package $package (for $file)"
  if [ "$_debian_lists_fresh" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive _apt_get update -qq
    _debian_lists_fresh=1
  fi
  DEBIAN_FRONTEND=noninteractive _apt_get install -y -qq --no-install-recommends "$package" >/dev/null
}

# Every Debian package the test suite uses, with the file that shows it is there.
ensure_test_packages() {
  ensure_debian_package softhsm2 /usr/lib/softhsm/libsofthsm2.so
  ensure_debian_package pgbouncer /usr/sbin/pgbouncer
  # The console's browser tests (e2e/console) drive it with playwright-core, which downloads no browser.
  ensure_debian_package chromium /usr/bin/chromium
}
