#!/usr/bin/env bash
# Installs Chromium from the distribution's packages when it is missing, for
# the dashboard's browser tests (test/dashboard). Works as root on a fresh
# Debian or Ubuntu machine, or with sudo. Anything else fails loudly: the
# browser tests never skip, so a machine without a browser must say why.
set -euo pipefail
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then
    exit 0
  fi
done
hack_dir=$(dirname "$0")
"$hack_dir/apt-install.sh" ensure-chromium chromium
command -v chromium >/dev/null 2>&1 || { echo "ensure-chromium: apt-get finished but chromium is not on PATH" >&2; exit 1; }
echo "ensure-chromium: $(chromium --version 2>/dev/null | head -1)"
