#!/usr/bin/env bash
# Measures what a newcomer's first run costs: clones this checkout's HEAD
# (or REF) into a fresh directory and runs the README's two commands there
# with empty caches — a fresh HOME, GOPATH, GOCACHE, module cache and
# real-node tools directory — first the build of `hack/up.sh` (without
# starting the plane), then the test command, each timed. The test
# command prints where its time went (hack/tools/testtimes); this script
# keeps its whole output and a summary in OUT (default: a new directory
# under /tmp), and prints the summary.
#
#   hack/measure-first-run.sh [-o OUT] [-warm] [-no-build] [REF]
#
# -warm runs the test command a second time in the same clone, caches
# now warm and nothing changed, and times that too. -no-build skips the
# README's build, so the test command starts from empty caches, as on a
# CI machine that runs only it. Each step's CPU time is counted too (in a
# cgroup of its own where the machine lets root make one, else the whole
# machine's): unlike wall time, it does not grow with other work.
#
# What it cannot make fresh: packages the system has (Go itself, and
# Chromium or the real node's Debian packages once installed; the summary
# says which were present). Run it on an otherwise idle machine: the
# figures are wall-clock times.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out="" warm=0 build=1 ref=HEAD
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    -warm) warm=1; shift ;;
    -no-build) build=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "measure-first-run: unknown flag $1" >&2; exit 2 ;;
    *) ref=$1; shift ;;
  esac
done
out=${out:-$(mktemp -d /tmp/ordinal-first-run.XXXXXX)}
mkdir -p "$out"
root=$(mktemp -d /tmp/ordinal-fresh.XXXXXX)
commit=$(git -C "$src" rev-parse --verify "$ref^{commit}")
git clone -q --no-hardlinks "$src" "$root/ordinal"
git -C "$root/ordinal" checkout -q --detach "$commit"

# Everything the project's scripts cache lives under these.
fresh_env=(HOME="$root/home" GOPATH="$root/gopath" GOCACHE="$root/gocache"
  GOMODCACHE="$root/gopath/pkg/mod" XDG_CACHE_HOME="$root/home/.cache"
  XDG_DATA_HOME="$root/home/.local/share" GOLANGCI_LINT_CACHE="$root/home/.cache/golangci-lint"
  ORDINAL_TEST_PLANE_LOCK="$root/planes.lock")
mkdir -p "$root/home"

present() { command -v "$1" >/dev/null 2>&1 && echo yes || echo no; }
{
  echo "commit:   $commit"
  echo "machine:  $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB, $(uname -r)"
  echo "go:       $(go version)"
  echo "present before the run: chromium $(present chromium), iptables $(present iptables), pkg-config $(present pkg-config)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/summary.txt"

# cpu_group makes a cgroup v1 cpuacct group for the measured commands and
# prints its directory, or nothing where it cannot.
cpu_group() {
  local g=/sys/fs/cgroup/cpuacct/ordinal-first-run-$$
  if [ -w /sys/fs/cgroup/cpuacct ] && mkdir -p "$g" 2>/dev/null; then echo "$g"; fi
}
group=$(cpu_group)
# cpu_now prints the CPU seconds used so far: the group's, or the machine's.
cpu_now() {
  if [ -n "$group" ]; then
    echo $(($(cat "$group/cpuacct.usage") / 1000000000))
  else
    awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print int(($2+$3+$4+$7+$8)/hz)}' /proc/stat
  fi
}
cpu_scope=${group:+"its own cgroup"}
cpu_scope=${cpu_scope:-"the whole machine's"}

# timed NAME LOG CMD... runs CMD in the fresh clone with the fresh caches.
timed() {
  local name=$1 log=$2 t0=$SECONDS status=0 c0
  shift 2
  c0=$(cpu_now)
  (
    if [ -n "$group" ]; then echo "$BASHPID" > "$group/cgroup.procs"; fi
    cd "$root/ordinal" && exec env "${fresh_env[@]}" "$@"
  ) >"$log" 2>&1 || status=$?
  echo "$name: $((SECONDS - t0)) s, $(($(cpu_now) - c0)) CPU s ($cpu_scope), exit $status (log $log)" | tee -a "$out/summary.txt"
  return 0
}

if [ "$build" = 1 ]; then
  timed "build (hack/build.sh, as hack/up.sh does first)" "$out/build.log" hack/build.sh
fi
timed "test command (hack/test.sh), first run" "$out/test.log" hack/test.sh
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
if [ "$warm" = 1 ]; then
  timed "test command (hack/test.sh), second run, caches warm" "$out/test-warm.log" hack/test.sh
fi
# The test command's own account of where the time went.
sed -n '/^== where the time went/,$p' "$out/test.log" >>"$out/summary.txt" || true
if [ -n "$group" ]; then rmdir "$group" 2>/dev/null || true; fi
echo "output in $out; the fresh clone and its caches in $root (remove it when done)"
