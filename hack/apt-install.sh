#!/usr/bin/env bash
# Installs Debian packages for the project's scripts: apt-get update, then
# apt-get install PACKAGE..., as root or through sudo. The test command
# installs Chromium and the real node's packages side by side on a fresh
# machine, and apt-get refuses to run while another apt-get holds its
# locks ("Could not get lock /var/lib/apt/lists/lock"), so the scripts'
# installs take turns on a lock of their own, and wait a while for any
# other apt-get or dpkg the machine runs.
#
#   hack/apt-install.sh WHO PACKAGE...     (WHO prefixes the messages)
set -euo pipefail
who=$1
shift
if ! command -v apt-get >/dev/null 2>&1; then
  echo "$who: needs $* and this is not a Debian-like system (no apt-get): install them" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "$who: installing $* needs root (or sudo): apt-get install -y $*" >&2
    exit 1
  fi
  sudo=(sudo)
fi
lock=${TMPDIR:-/tmp}/ordinal-apt.lock
exec 9>>"$lock"
if ! flock -w 900 9; then
  echo "$who: another of the project's package installs held $lock for 15 minutes" >&2
  exit 1
fi
echo "$who: installing $* (apt-get)"
export DEBIAN_FRONTEND=noninteractive
wait_locks=(-o DPkg::Lock::Timeout=300)
"${sudo[@]}" apt-get "${wait_locks[@]}" update -qq
"${sudo[@]}" apt-get "${wait_locks[@]}" install -y -qq "$@" >/dev/null
