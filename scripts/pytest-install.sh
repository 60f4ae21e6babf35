#!/usr/bin/env bash
# Make sure a Python 3 with pytest is on this Debian machine, for the Python client's suite
# (clients/python, run by cmd/recall's TestPythonClient), and print the interpreter's path.
# Idempotent and quiet when it is there: Debian's python3-pytest is installed (apt-get, as
# root) only when neither python3 on the PATH nor /usr/bin/python3 has pytest.
#
#   scripts/pytest-install.sh
set -euo pipefail

log() { printf 'pytest-install: %s\n' "$*" >&2; }

for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -m pytest --version >/dev/null 2>&1; then
    command -v "$py"
    exit 0
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  log "no Python with pytest, and installing it needs root: run 'sudo apt-get install python3-pytest' once"
  exit 1
fi
log "installing Debian's python3-pytest (apt-get)"
apt-get update -qq >/dev/null || { log "apt-get update failed: is Debian's archive reachable?"; exit 1; }
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pytest >/dev/null
/usr/bin/python3 -m pytest --version >/dev/null
echo /usr/bin/python3
