#!/usr/bin/env bash
# Runs golangci-lint (v2, pinned) with the project's .golangci.yml. Another
# checkout's lint running at the same time (golangci-lint holds a lock in
# the temporary directory) waits instead of failing.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.6.2 run --allow-parallel-runners ./...
