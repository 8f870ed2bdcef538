#!/usr/bin/env bash
# The project's test command: vet, then every test, then a short chaos run
# once that suite exists. Integration tests start one embedded control plane
# per test package, so nothing needs to be installed beforehand.
set -euo pipefail
cd "$(dirname "$0")/.."
ldflags=$(hack/ldflags.sh)
echo "== go vet"
go vet ./...
echo "== go test"
go test -ldflags "$ldflags" -timeout 25m -p 2 ./...
