#!/usr/bin/env bash
# Builds ordinal if needed and runs `ordinal up` with the given flags.
set -euo pipefail
cd "$(dirname "$0")/.."
hack/build.sh
exec bin/ordinal up "$@"
