#!/usr/bin/env bash
# Builds ordinal if needed and runs `ordinal up` with the given flags. With
# --real-node it first builds the real node's tools (hack/ensure-realnode.sh,
# once) and points ordinal up at them.
set -euo pipefail
cd "$(dirname "$0")/.."
hack/build.sh
args=("$@")
for a in "$@"; do
  if [ "$a" = "--real-node" ] || [ "$a" = "--real-node=true" ]; then
    tools=$(hack/ensure-realnode.sh | tail -1)
    args+=("--real-node-tools=$tools")
    break
  fi
done
exec bin/ordinal up "${args[@]}"
