#!/usr/bin/env bash
# The project's test command: formatting, vet, lint, then every test (the chaos
# suite runs a few seeded runs by default). Integration tests start one
# embedded control plane per test package, so nothing needs to be installed
# beforehand. The packaging tests are among them: internal/image builds the
# controller image twice and compares digests, test/install renders the Helm
# chart (the pinned Helm CLI, fetched and built by `go run` on first use)
# and config/ and dry-runs them, internal/cli/doctor runs `ordinal doctor`.
# As root on Linux, hack/ensure-realnode.sh builds (once, into a cache
# directory) what a real node runs, and test/realnode must run on one.
# Packages build and test side by side, but the packages that start
# control planes take a lock (planetest.OneAtATime) and run their planes
# one package at a time: two packages' planes side by side on a small
# machine would measure the machine. Unit tests and the links of the next
# test binaries go on beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
ldflags=$(hack/ldflags.sh)
# Each step says when it started, in seconds since the command began.
step() { echo "== $1 (at ${SECONDS} s)"; }
step "chromium (for the dashboard's browser tests)"
hack/ensure-chromium.sh
step "real node (containerd, runc, CNI plugins, kubelet, kube-proxy and images for test/realnode)"
if [ "$(id -u)" -eq 0 ] && [ "$(uname -s)" = Linux ]; then
  t0=$SECONDS
  ORDINAL_REALNODE_TOOLS=$(hack/ensure-realnode.sh | tail -1)
  export ORDINAL_REALNODE_TOOLS ORDINAL_REALNODE=require
  echo "tools in $ORDINAL_REALNODE_TOOLS ($((SECONDS - t0)) s); test/realnode must run"
else
  echo "not root on Linux: test/realnode skips its tests, saying why"
fi
step "gofmt"
unformatted=$(gofmt -l api cmd config internal test hack)
if [ -n "$unformatted" ]; then echo "not gofmt-ed:"; echo "$unformatted"; exit 1; fi
step "generated files"
hack/verify-generated.sh
step "go vet"
go vet ./...
step "golangci-lint"
hack/lint.sh
step "go build"
go build -ldflags "$ldflags" ./...
# The race detector's runs start first and go on beside the rest; their
# output follows the rest's.
step "go test -race, beside go test (the controller: work queue, bursts, per-set state, handlers; the simulated nodes' concurrent stage start-up)"
race_log=$(mktemp)
# In a session of its own, so a failure of the rest stops all of it.
trap 'rm -f "$race_log"; [ -z "${race_pid:-}" ] || kill -- "-$race_pid" 2>/dev/null || true' EXIT
setsid bash -c 'go test -race -timeout 10m ./internal/controller/ &&
  go test -race -timeout 10m -run TestStagesMatchConcurrentlyAfterWarmUp ./internal/plane/nodes/' >"$race_log" 2>&1 &
race_pid=$!
step "go test"
go test -ldflags "$ldflags" -timeout 30m -p 3 ./...
step "go test -race (its output)"
race_status=0
wait "$race_pid" || race_status=$?
race_pid=
cat "$race_log"
[ "$race_status" -eq 0 ] || { echo "go test -race failed"; exit "$race_status"; }
echo "== done (at ${SECONDS} s)"
