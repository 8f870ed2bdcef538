#!/usr/bin/env bash
# Runs golangci-lint (v2, pinned) with the project's .golangci.yml. Another
# checkout's lint running at the same time (golangci-lint holds a lock in
# the temporary directory) waits instead of failing.
#
#   hack/lint.sh [--after FILE]
#
# The linter is built once into a cache directory. With --after, it is
# built at once and run when FILE exists: the test command builds the
# packages the lint run reads (their export data) first, so that two go
# commands do not compile them side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.6.2
after=""
while [ $# -gt 0 ]; do
  case "$1" in
    --after) after=$2; shift 2 ;;
    *) echo "lint: unknown argument $1 (hack/lint.sh [--after FILE])" >&2; exit 2 ;;
  esac
done
bin=${XDG_CACHE_HOME:-$HOME/.cache}/ordinal/tools/golangci-lint-$version
GOBIN=$bin go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
if [ -n "$after" ]; then
  until [ -e "$after" ]; do sleep 1; done
fi
exec "$bin/golangci-lint" run --allow-parallel-runners ./...
