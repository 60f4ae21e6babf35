#!/usr/bin/env bash
# Make sure headless Chromium is on this Debian machine, for the console's browser tests
# (server/console_test.go), and print its path. Idempotent and quiet when it is there:
# Debian's chromium package, with what Debian recommends beside it (fonts-liberation among
# them), is installed (apt-get, as root) only when no chromium is found.
#
#   scripts/chromium-install.sh
set -euo pipefail

log() { printf 'chromium-install: %s\n' "$*" >&2; }

for name in chromium chromium-browser; do
  if path=$(command -v "$name"); then
    echo "$path"
    exit 0
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  log "no chromium, and installing it needs root: run 'sudo apt-get install chromium' once"
  exit 1
fi
log "installing Debian's chromium (apt-get)"
apt-get update -qq >/dev/null || { log "apt-get update failed: is Debian's archive reachable?"; exit 1; }
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium
