#!/usr/bin/env bash
# Builds the upstream control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl) as one binary from e2e/lab/kubebin and caches it outside
# the clone, keyed by the pins and the Go version, so a fresh clone (CI) reuses it.
# Prints the bin directory on stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/e2e/lab/kubebin"
kube_version="v1.36.4"
key="$( (cat "$src/go.mod" "$src/go.sum" "$src/main.go"; go version) | sha256sum | cut -c1-12)"
cache="${SPILLWAY_CACHE:-$HOME/.cache/spillway}"
bin="$cache/kubebin/$kube_version-$key"
names=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)
if [[ -x "$bin/kubebin" ]]; then
  echo "$bin"; exit 0
fi
mkdir -p "$bin.tmp"
pkg="k8s.io/component-base/version"
ldflags="-s -w -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=36 -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$kube_version -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=36"
echo "kubebin: building $kube_version control plane into $bin (cold build takes 5-9 minutes)" >&2
start=$(date +%s)
(cd "$src" && GOFLAGS=-mod=mod GONOSUMDB=k8s.io CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bin.tmp/kubebin" .)
for n in "${names[@]}"; do ln -sf kubebin "$bin.tmp/$n"; done
rm -rf "$bin"; mv "$bin.tmp" "$bin"
echo "kubebin: built in $(( $(date +%s) - start ))s" >&2
echo "$bin"
