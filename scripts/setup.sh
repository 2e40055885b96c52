#!/usr/bin/env bash
# Installs what Retrace needs on a fresh Debian machine: git, Debian's Chromium (for the e2e tests), FUSE and
# the npm packages. The Electron binary cannot be downloaded here, so it is skipped; the app still builds.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v git >/dev/null 2>&1 || need+=(git)
[ -x /usr/bin/chromium ] || need+=(chromium)
# FUSE, for the tests that mount a case-insensitive folder (test/helpers/ciFuse.py; skipped without it).
command -v fusermount3 >/dev/null 2>&1 || need+=(fuse3)
/usr/bin/python3 -c 'import fusepy' >/dev/null 2>&1 || need+=(python3-fusepy)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
npm ci --no-audit --no-fund
