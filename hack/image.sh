#!/usr/bin/env bash
# Builds the ordinal-controller container image without a container engine:
# an OCI layout in bin/image/ordinal-controller and the same as an OCI
# archive, bin/image/ordinal-controller.tar, and prints the digest. The tag is
# the VERSION file's; the creation time is $SOURCE_DATE_EPOCH, else the
# commit's time, so two builds of one commit give the same digest.
# Extra arguments go to the builder, e.g. --platforms linux/amd64 or
# --repository registry.example.com/ordinal-controller.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=$(cat VERSION)
revision=""
created=${SOURCE_DATE_EPOCH:-0}
if git rev-parse --git-dir >/dev/null 2>&1; then
  revision=$(git rev-parse HEAD)
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then revision="${revision}-dirty"; fi
  created=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
fi
exec go run ./hack/imagebuild --tag "$tag" --revision "$revision" --created "$created" --ldflags "$(hack/ldflags.sh)" "$@"
