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
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: Chromium is not installed and this is not a Debian-like system (no apt-get); install Chromium and put it on PATH, or set CHROMIUM to its path" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "ensure-chromium: installing Chromium needs root (or sudo): apt-get install -y chromium" >&2
    exit 1
  fi
  sudo="sudo"
fi
echo "ensure-chromium: installing Chromium (apt-get install chromium)"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "ensure-chromium: apt-get finished but chromium is not on PATH" >&2; exit 1; }
echo "ensure-chromium: $(chromium --version 2>/dev/null | head -1)"
