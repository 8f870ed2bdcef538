#!/usr/bin/env bash
# Fails when the generated files (deepcopy functions, the CRD and the
# chart's copy of it) are not what hack/generate.sh makes from the current
# types: it generates into a temporary directory and compares. Also runs
# the CRD patcher's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go -C hack/tools test ./...
hack/generate.sh "$tmp"
stale=0
for f in api/v1alpha1/zz_generated.deepcopy.go config/crd/apps.ordinal.dev_statefulsets.yaml charts/ordinal/crds/apps.ordinal.dev_statefulsets.yaml; do
	if ! diff -u "$f" "$tmp/$f"; then
		stale=1
	fi
done
if [ "$stale" != 0 ]; then
	echo "generated files are stale: run hack/generate.sh and commit the result" >&2
	exit 1
fi
echo "generated files are current"
