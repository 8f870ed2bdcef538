#!/usr/bin/env bash
# Builds bin/ordinal (and bin/kubectl-ordinal, the kubectl plugin name) with
# the Kubernetes version stamped in.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -ldflags "$(hack/ldflags.sh)" -o bin/ordinal ./cmd/ordinal
ln -sf ordinal bin/kubectl-ordinal
