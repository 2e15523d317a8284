#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test Spillway: Debian packages
# and the Go tools of the lab, the generators and the linter (cached under
# ~/.cache/spillway by version), among them Flux, External Secrets and the
# storage suite's local-path-provisioner, built from the Go module proxy (cold,
# on two cores: about 4 + 3 + 1 + 11 + 2 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "deps: Go is not installed: install Go 1.26 from go.dev first" >&2; exit 1; }
need=()
for pkg_cmd in make:make git:git iproute2:ip; do
  command -v "${pkg_cmd#*:}" >/dev/null || need+=("${pkg_cmd%%:*}")
done
if ((${#need[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing Debian packages ${need[*]}: run sudo apt-get install ${need[*]}" >&2; exit 1
  fi
  echo "deps: installing ${need[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
hack/netdeps.sh
hack/kubebin.sh >/dev/null
hack/tools.sh kwok >/dev/null
hack/tools.sh kwok-stages >/dev/null
hack/tools.sh controller-gen >/dev/null
hack/tools.sh golangci-lint >/dev/null
for tool in source-controller kustomize-controller flux external-secrets local-path-provisioner flux-crds external-secrets-crds; do
  hack/tools.sh "$tool" >/dev/null
done
echo "deps: ready" >&2
