#!/usr/bin/env bash
# Runs golangci-lint (v2, pinned) with the project's .golangci.yml.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.6.2 run ./...
