#!/usr/bin/env bash
# Prints the -ldflags that stamp the Kubernetes version into the embedded
# components. Built as a module dependency they would report
# v0.0.0-master+$Format:%H$, which kubectl cannot parse.
set -euo pipefail
cd "$(dirname "$0")/.."
v=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)   # e.g. v1.36.3
minor=${v#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
echo "-X ${pkg}.gitVersion=${v} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
