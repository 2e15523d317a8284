#!/usr/bin/env bash
# Installs the Go tools the lab and the code generators use into a cache outside
# the clone, keyed by version: `hack/tools.sh NAME` prints the binary's path.
# Known tools: kwok, controller-gen, golangci-lint, kwok-stages (prints the stage directory).
set -euo pipefail
cache="${SPILLWAY_CACHE:-$HOME/.cache/spillway}"
KWOK_VERSION=v0.8.0
CONTROLLER_GEN_VERSION="${CONTROLLER_GEN_VERSION:-v0.20.0}"
GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"

install() { # name module version
  local dir="$cache/tools/$1-$3"
  if [[ ! -x "$dir/$1" ]]; then
    echo "tools: installing $2@$3 into $dir" >&2
    GOBIN="$dir" GOFLAGS=-mod=mod go install "$2@$3" >&2
  fi
  echo "$dir/$1"
}

case "${1:-}" in
  kwok) install kwok sigs.k8s.io/kwok/cmd/kwok "$KWOK_VERSION" ;;
  kwok-stages)
    # The stage manifests ship inside the kwok module; the Go module cache holds them read-only.
    dir="$(GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
    [[ -d "$dir/kustomize/stage" ]] || { echo "tools: kwok $KWOK_VERSION stage files not found in $dir" >&2; exit 1; }
    echo "$dir/kustomize/stage" ;;
  controller-gen) install controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen "$CONTROLLER_GEN_VERSION" ;;
  golangci-lint) install golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" ;;
  *) echo "usage: hack/tools.sh {kwok|kwok-stages|controller-gen|golangci-lint}" >&2; exit 2 ;;
esac
