#!/usr/bin/env bash
# The project's test command: formatting, generated files, lint (with go
# vet's analyzers), then every test (the chaos suite runs a few seeded
# runs by default). Integration tests start one embedded control plane
# per test package, so nothing needs to be installed beforehand. The
# packaging tests are among them: internal/image builds the controller
# image twice and compares digests, test/install renders the Helm chart
# (the pinned Helm CLI, fetched and built by `go run` on first use) and
# config/ and dry-runs them, internal/cli/doctor runs `ordinal doctor`.
# As root on Linux, hack/ensure-realnode.sh builds (once, into a cache
# directory) what a real node runs, and test/realnode must run on one.
#
# On a fresh machine most of the time is compiling, and go commands that
# run side by side do not share a package one of them is still compiling:
# each compiles it again. So the command builds in two steps. First, one
# `go build` compiles the packages the tests, the linter's analysis and
# the real node's kubelet share (the whole control plane), linking
# nothing. Beside it, only what shares nothing with it: the `-race`
# builds, the generated-files check (its own module), the linter's own
# build, containerd, runc and the CNI plugins, and Chromium (a Debian
# package). Then `go test` of every package, and beside it, as soon as
# their tools are there: `go build ./...` (every command links),
# test/dashboard, the kubelet and test/realnode, the lint run, the
# `-race` tests. What goes on in the background
# compiles at a lower priority (nice), so the tests' planes, whose
# timings matter, get the CPUs first. The packages that start control
# planes take one of two slots (internal/plane/planelock;
# ORDINAL_TEST_PLANE_SLOTS=1 runs one package's planes at a time): a plane
# package keeps about one CPU busy, so two side by side use a small
# machine's two CPUs. Each background part's output follows the rest's,
# with when it ended, and the command ends by saying where its time went
# (hack/tools/testtimes) and how much CPU it used.
set -euo pipefail
cd "$(dirname "$0")/.."
began=$EPOCHREALTIME
ldflags=$(hack/ldflags.sh)
report=$(mktemp -d "${TMPDIR:-/tmp}/ordinal-test.XXXXXX")
export ORDINAL_TEST_PLANE_SLOTS=${ORDINAL_TEST_PLANE_SLOTS:-2}
# Each step says when it started, in seconds since the command began.
step() { echo "== $1 (at ${SECONDS} s)"; }

# background NAME CMD runs CMD in a session of its own (so a failure
# elsewhere stops all of it), its output in $report/NAME.log, which ends
# saying when it ended.
declare -A bg_pid=()
background() {
  local name=$1
  shift
  setsid bash -c "set -o pipefail; $*
    status=\$?; echo \"($name ended at \$((\$(date +%s) - began_s)) s)\"; exit \$status" >"$report/$name.log" 2>&1 &
  bg_pid[$name]=$!
}
# after_build, in a background part, waits until the shared build is done
# (or has failed: its failure is reported once, by the build step).
after_build() { until [ -e "$report/built" ]; do sleep 1; done; }
began_s=$(date +%s)
cpu_before=$(awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat)
export -f after_build
export began_s
stop_background() {
  for pid in "${bg_pid[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}
trap stop_background EXIT
# finish NAME waits for a background part and prints its output; it
# returns the part's status.
finish() {
  local status=0
  wait "${bg_pid[$1]}" || status=$?
  unset "bg_pid[$1]"
  echo "== $1: its output (ended with status $status, at ${SECONDS} s)"
  cat "$report/$1.log"
  return "$status"
}

gotestsum="$report/gotestsum"
step "gotestsum and testtimes (hack/tools)"
go -C hack/tools build -o "$report/" gotest.tools/gotestsum ./testtimes
# gotest ARGS... runs go test, printing each package's result and the
# output of failed tests, and keeps the events for the time report.
gotest() {
  local name=$1
  shift
  "$gotestsum" --format pkgname-and-test-fails --format-hide-empty-pkg --jsonfile "$report/$name.json" -- "$@"
}
export -f gotest
export gotestsum report

step "background: the -race builds (nice), then the -race tests (the controller: work queue, bursts, per-set state, handlers; the simulated nodes' concurrent stage start-up)"
# Built apart and run at normal priority: the tests' timeouts are real.
race_controller="$report/controller.race.test" race_nodes="$report/nodes.race.test"
background race "nice -n 10 go test -race -c -o '$race_controller' ./internal/controller/ &&
  nice -n 10 go test -race -c -o '$race_nodes' ./internal/plane/nodes/ &&
  (cd internal/controller && '$race_controller' -test.timeout 10m) &&
  (cd internal/plane/nodes && '$race_nodes' -test.timeout 10m -test.run TestStagesMatchConcurrentlyAfterWarmUp) &&
  echo 'race: internal/controller and internal/plane/nodes passed'"
step "background: generated files (nice; hack/verify-generated.sh builds the pinned generator on first use)"
background generated "nice -n 10 hack/verify-generated.sh"
step "background: golangci-lint (nice; hack/lint.sh, with go vet's analyzers): its build now, its run after the shared build"
background lint "nice -n 10 hack/lint.sh --after '$report/built'"
step "background: chromium (nice), then test/dashboard (the dashboard's browser tests) after the shared build"
background dashboard "nice -n 10 hack/ensure-chromium.sh && after_build && gotest dashboard -ldflags '$ldflags' -timeout 30m ./test/dashboard/"
realnode_pkg=()
if [ "$(id -u)" -eq 0 ] && [ "$(uname -s)" = Linux ]; then
  step "background: the real node's tools (nice: containerd, runc, CNI plugins now; kubelet, kube-proxy, images after the shared build), then test/realnode"
  background realnode "t0=\$SECONDS; nice -n 10 hack/ensure-realnode.sh --without-kubernetes >/dev/null && after_build &&
    tools=\$(nice -n 10 hack/ensure-realnode.sh | tail -1) &&
    echo \"tools in \$tools (\$((SECONDS - t0)) s); test/realnode must run\" &&
    ORDINAL_REALNODE_TOOLS=\$tools ORDINAL_REALNODE=require gotest realnode -ldflags '$ldflags' -timeout 30m ./test/realnode/"
  realnode_pkg=(./test/realnode/)
else
  echo "not root on Linux: test/realnode skips its tests, saying why"
fi

step "gofmt"
unformatted=$(gofmt -l api cmd config internal test hack)
if [ -n "$unformatted" ]; then echo "not gofmt-ed:"; echo "$unformatted"; exit 1; fi
status=0
step "go build (compiles what the tests, the lint run and the kubelet share; the commands link after it)"
# shellcheck disable=SC2046 # one package a word
go build $(go list -f '{{if and (ne .Name "main") .GoFiles}}{{.ImportPath}}{{end}}' ./...) || { echo "go build failed"; status=1; }
touch "$report/built"
step "background: go build ./... (nice; every command links)"
background build "nice -n 10 go build -ldflags '$ldflags' ./..."
step "go test (all but test/dashboard and test/realnode, which follow their tools)"
# The packages whose planes run longest go first: go test starts packages
# in the order given, and the last plane package to start ends the run.
# A plane package waiting for a plane slot holds one of go test's -p
# places meanwhile (its binary waits in TestMain), so -p is larger than
# the plane packages that wait at once, leaving places to the packages
# without a plane: with -p 4, three of four places waited for the lock
# for most of a cold run, and the unit packages ran at its end.
first="./test/integration/ ./internal/cli/rollout/ ./test/chaos/ ./test/nodeloss/ ./test/install/"
packages="$first $(go list ./... | grep -v -e '/test/dashboard$' -e '/test/realnode$' \
  -e '/test/integration$' -e '/internal/cli/rollout$' -e '/test/chaos$' -e '/test/nodeloss$' -e '/test/install$')"
if [ ${#realnode_pkg[@]} -eq 0 ]; then
  # Not root: test/realnode runs here, and skips saying why.
  packages="$packages ./test/realnode/"
fi
# shellcheck disable=SC2086 # one package a word
gotest main -ldflags "$ldflags" -timeout 30m -p 8 -parallel 4 $packages || status=$?

for name in generated build lint dashboard realnode race; do
  [ -n "${bg_pid[$name]:-}" ] || continue
  finish "$name" || { echo "$name failed"; status=1; }
done

echo "== where the time went"
"$report/testtimes" -start "$began" -top 15 -json <(cat "$report"/*.json) || true
echo "(the test events are in $report)"
cpu_after=$(awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat)
echo "CPU time used on this machine meanwhile: $(((cpu_after - cpu_before) / $(getconf CLK_TCK))) s in ${SECONDS} s ($(nproc) CPUs; load now $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$status" -ne 0 ]; then
  echo "== failed (at ${SECONDS} s)"
  exit "$status"
fi
echo "== done (at ${SECONDS} s)"
