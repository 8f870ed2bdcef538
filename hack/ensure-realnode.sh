#!/usr/bin/env bash
# Builds what `ordinal up --real-node` runs, once, into a tools directory that
# later runs and other checkouts reuse:
#   bin/        containerd, containerd-shim-runc-v2, ctr, runc (with seccomp),
#               kubelet and kube-proxy (this checkout's Kubernetes version)
#   cni/        the CNI reference plugins bridge, host-local, loopback, portmap
#   images/     OCI archives of the pause image and the test application
# and installs the Debian packages they need (libseccomp-dev and pkg-config
# to build runc, iptables for kube-proxy). Everything is built from source
# with the Go toolchain; nothing is downloaded but Go modules and Debian
# packages. Prints the tools directory on its last line.
#
#   hack/ensure-realnode.sh [--without-kubernetes]
#
# --without-kubernetes builds only what shares no packages with the
# project's own build (the Debian packages, containerd, runc, the CNI
# plugins), so that it can go on beside that build; a later run without
# it builds the rest.
#
# The directory is $ORDINAL_REALNODE_TOOLS if set, else
# ${XDG_CACHE_HOME:-~/.cache}/ordinal/realnode/KUBERNETES_VERSION, which is
# where `ordinal up --real-node` looks by default. A stamp file records the
# version of each part built; a change rebuilds that part.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
kubernetes=1
case "${1:-}" in
  --without-kubernetes) kubernetes=0 ;;
  "") ;;
  *) echo "ensure-realnode: unknown argument $1 (hack/ensure-realnode.sh [--without-kubernetes])" >&2; exit 2 ;;
esac

containerd_version=v2.4.2
runc_version=v1.3.6
cni_version=v1.10.0
k8s_version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
dir=${ORDINAL_REALNODE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/ordinal/realnode/$k8s_version}

say() { echo "ensure-realnode: $*" >&2; }

packages() {
  local missing=()
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  command -v iptables >/dev/null 2>&1 || missing+=(iptables)
  dpkg -s libseccomp-dev >/dev/null 2>&1 || missing+=(libseccomp-dev)
  [ ${#missing[@]} -eq 0 ] && return 0
  "$root/hack/apt-install.sh" ensure-realnode "${missing[@]}"
}

# kubelet and kube-proxy come from this checkout's k8s.io/kubernetes. They
# need modules the project itself does not, so they are built in a scratch
# module with the project's requirements and replacements, which leaves the
# project's go.mod and go.sum alone. Built without -trimpath, they share
# the compiled Kubernetes packages with the project's own builds (the
# plane's tests compile most of them anyway).
kube_binaries() {
  local src="$dir/src"
  mkdir -p "$src"
  sed 's|^module .*|module ordinal.dev/realnode-tools|' go.mod > "$src/go.mod"
  cp go.sum "$src/go.sum"
  (cd "$src" && GOFLAGS=-mod=mod go build -ldflags "-s -w $(cd "$root" && hack/ldflags.sh)" \
    -o "$dir/bin/" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
}

containerd() {
  (cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="$dir/bin" go install -trimpath -ldflags "-s -w" \
    -tags no_btrfs,no_devmapper,no_zfs \
    "github.com/containerd/containerd/v2/cmd/containerd@$containerd_version" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$containerd_version" \
    "github.com/containerd/containerd/v2/cmd/ctr@$containerd_version")
}

runc() {
  (cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=1 GOBIN="$dir/bin" go install -trimpath -tags seccomp \
    -ldflags "-X main.version=${runc_version#v}" "github.com/opencontainers/runc@$runc_version")
}

cni() {
  (cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="$dir/cni" go install -trimpath -ldflags "-s -w" \
    "github.com/containernetworking/plugins/plugins/main/bridge@$cni_version" \
    "github.com/containernetworking/plugins/plugins/main/loopback@$cni_version" \
    "github.com/containernetworking/plugins/plugins/ipam/host-local@$cni_version" \
    "github.com/containernetworking/plugins/plugins/meta/portmap@$cni_version")
}

# component NAME VERSION builds NAME unless its stamp says VERSION (and the
# Go release) is built already.
component() {
  local name=$1 version="$2 $(go env GOVERSION)" t0=$SECONDS
  if [ "$(cat "$dir/stamp.$name" 2>/dev/null)" = "$version" ]; then return 0; fi
  rm -f "$dir/stamp.$name"
  "$name"
  echo "$version" > "$dir/stamp.$name"
  say "$name $2 built ($((SECONDS - t0)) s)"
}

packages
mkdir -p "$dir/bin" "$dir/cni"
component containerd "$containerd_version"
component runc "$runc_version"
component cni "$cni_version"
if [ "$kubernetes" = 0 ]; then
  echo "$dir"
  exit 0
fi
component kube_binaries "$k8s_version"

# The images are this checkout's and cheap to make: always rebuilt (the
# same sources give the same digests).
t0=$SECONDS
image() {
  go run ./hack/imagebuild --platforms "linux/$(go env GOARCH)" --out "$dir/images" --tag v1 \
    --repository "localhost/ordinal/$1" --name "$1" --title "ordinal-$1" --package "./cmd/ordinal-$1" \
    --entrypoint "/$1" --user "$2" --ldflags "-X main.version=v1" --created 0 >/dev/null
}
image pause 65535:65535
image testapp 0:0
say "images pause and testapp built ($((SECONDS - t0)) s)"
echo "$dir"
