#!/usr/bin/env bash
# Builds bin/ordinal (and bin/kubectl-ordinal, the kubectl plugin name) with
# the Kubernetes version stamped in, and the small single-purpose binaries:
# bin/ordinal-controller (the controller alone, for a cluster image) and the
# benchmark contenders bin/ordinal-bench-builtin and bin/ordinal-bench-floor.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
ldflags=$(hack/ldflags.sh)
go build -ldflags "$ldflags" -o bin/ordinal ./cmd/ordinal
ln -sf ordinal bin/kubectl-ordinal
for cmd in ordinal-controller ordinal-bench-builtin ordinal-bench-floor; do
  go build -ldflags "$ldflags" -o "bin/$cmd" "./cmd/$cmd"
done
