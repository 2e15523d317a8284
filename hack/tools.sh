#!/usr/bin/env bash
# Installs the Go tools the lab and the code generators use into a cache outside
# the clone, keyed by version: `hack/tools.sh NAME` prints the binary's path.
# Known tools: kwok, controller-gen, golangci-lint, kwok-stages (prints the stage
# directory), and the GitOps tools the lab runs as processes: source-controller,
# kustomize-controller, flux, external-secrets, local-path-provisioner (the
# lab's dynamic volume provisioner); flux-crds and external-secrets-crds
# print their CRD files' directory.
set -euo pipefail
cache="${SPILLWAY_CACHE:-$HOME/.cache/spillway}"
KWOK_VERSION=v0.8.0
CONTROLLER_GEN_VERSION="${CONTROLLER_GEN_VERSION:-v0.20.0}"
GOLANGCI_LINT_VERSION="${GOLANGCI_LINT_VERSION:-v2.15.0}"
FLUX_CONTROLLERS_VERSION=v1.9.6
FLUX_CLI_VERSION=v2.9.5
EXTERNAL_SECRETS_VERSION=v0.16.2
LOCAL_PATH_PROVISIONER_VERSION=v0.0.30

install() { # name module version
  local dir="$cache/tools/$1-$3"
  if [[ ! -x "$dir/$1" ]]; then
    echo "tools: installing $2@$3 into $dir" >&2
    GOBIN="$dir" GOFLAGS=-mod=mod go install "$2@$3" >&2
  fi
  echo "$dir/$1"
}

module_dir() { # module@version: the read-only directory the Go module cache holds it in
  # Outside any module: inside one, go mod download leaves Dir out for modules it does not require.
  (cd / && GOFLAGS=-mod=mod GONOSUMDB=github.com/fluxcd,github.com/external-secrets go mod download -json "$1") |
    sed -n 's/.*"Dir": "\(.*\)",/\1/p'
}

# These modules carry replace directives (`go install m@v` refuses them) and, for the Flux
# controllers, a replace of their api module by a ./api directory the module zip lacks:
# build from a writable copy with those replaces removed. kwok is built the same way,
# for the one line the lab changes (resume_kwok_watches). The copy is deleted afterwards.
build_module() { # name module version package [go mod edit flags...]
  local name=$1 module=$2 version=$3 pkg=$4; shift 4
  local dir="$cache/tools/$name-$version${build_tag[$name]:-}"
  mkdir -p "$dir"
  # One build at a time per tool: two suites (or a suite and deps.sh) asking
  # at once wait for the first build rather than racing it.
  exec {lock}>"$dir/.lock"
  flock "$lock"
  if [[ ! -x "$dir/$name" ]]; then
    local src work start
    src="$(module_dir "$module@$version")"
    [[ -d "$src" ]] || { echo "tools: could not download $module@$version" >&2; exit 1; }
    work="$(mktemp -d)"
    cp -r "$src/." "$work/" && chmod -R u+w "$work"
    sed -i '\#^replace [^ ]*/api => ./api$#d' "$work/go.mod"
    if (($#)); then (cd "$work" && go mod edit "$@"); fi
    if [[ "$name" == flux ]]; then
      # `flux install` embeds manifests that flux2's release process generates
      # and the module zip lacks; the lab installs Flux itself, so the CLI gets
      # an empty set and every other command (get, reconcile, diff) is whole.
      mkdir -p "$work/cmd/flux/manifests"
      echo "# flux install is not available in this build (hack/tools.sh)" >"$work/cmd/flux/manifests/none.yaml"
    fi
    if [[ "$name" == kwok ]]; then resume_kwok_watches "$work"; fi
    echo "tools: building $module@$version into $dir (cold build: minutes)" >&2
    start=$(date +%s)
    # flux prints main.VERSION, which its release process sets.
    (cd "$work" && GOFLAGS=-mod=mod GONOSUMDB=github.com/fluxcd,github.com/external-secrets,k8s.io \
      CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.VERSION=${version#v}" -o "$dir/$name.tmp" "$pkg") >&2
    mv "$dir/$name.tmp" "$dir/$name"
    rm -rf "$work"
    echo "tools: built $name in $(( $(date +%s) - start ))s" >&2
  fi
  echo "$dir/$name"
}

# What a tool's cache directory adds to name-version when the lab builds it
# with a change of its own, so that a cache from before the change is not used.
declare -A build_tag=([kwok]=-resume-watch)

# kwok v0.8.0 opens every watch at resourceVersion "0" (pkg/utils/informer,
# Option.setup overwrites the version its reflector asks for), so every new
# watch (client-go ends each after 5 to 10 minutes) replays every bound pod as
# ADDED. Some 8,600 pods into a 10,000-pod batch on two busy cores, kwok's
# single preprocessing goroutine took longer over that replay than the API
# server waits on a full watcher, the watch was closed, and the next replay was
# closed too, every few seconds for the rest of the run: up to a core of CPU and
# stale pods played twice (issue 17, docs/performance.md "The lab's kwok,
# closed and replayed"). The lab's kwok keeps the version its reflector asks
# for, so a watch resumes where it stopped as client-go's own informers do; a
# list without one still reads from the cache ("0"). The build fails if the
# line it changes is not there.
resume_kwok_watches() { # the writable module copy
  local f="$1/pkg/utils/informer/event.go"
  sed -i 's/^\tif !o.EnableListPager || o.EnableStreamWatch {$/\tif (!o.EnableListPager || o.EnableStreamWatch) \&\& opts.ResourceVersion == "" {/' "$f"
  grep -q '^	if (!o.EnableListPager || o.EnableStreamWatch) && opts.ResourceVersion == "" {$' "$f" ||
    { echo "tools: kwok $KWOK_VERSION: the watch fix does not apply to $f" >&2; exit 1; }
}

case "${1:-}" in
  kwok) build_module kwok sigs.k8s.io/kwok "$KWOK_VERSION" ./cmd/kwok ;;
  kwok-stages)
    # The stage manifests ship inside the kwok module; the Go module cache holds them read-only.
    dir="$(GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
    [[ -d "$dir/kustomize/stage" ]] || { echo "tools: kwok $KWOK_VERSION stage files not found in $dir" >&2; exit 1; }
    echo "$dir/kustomize/stage" ;;
  controller-gen) install controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen "$CONTROLLER_GEN_VERSION" ;;
  golangci-lint) install golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION" ;;
  source-controller)
    # pkg/artifact v0.18.2 and later refuse to build against this release; v0.18.0 is what it was tested with.
    build_module source-controller github.com/fluxcd/source-controller "$FLUX_CONTROLLERS_VERSION" . \
      -replace=github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@v0.18.0 ;;
  kustomize-controller) build_module kustomize-controller github.com/fluxcd/kustomize-controller "$FLUX_CONTROLLERS_VERSION" . ;;
  flux) build_module flux github.com/fluxcd/flux2/v2 "$FLUX_CLI_VERSION" ./cmd/flux ;;
  # No replace directives: go install builds it as it is published.
  local-path-provisioner) install local-path-provisioner github.com/rancher/local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION" ;;
  external-secrets) build_module external-secrets github.com/external-secrets/external-secrets "$EXTERNAL_SECRETS_VERSION" . ;;
  flux-crds)
    # Only the two controllers the lab runs: GitRepository and friends, and Kustomization.
    out="$cache/tools/flux-crds-$FLUX_CONTROLLERS_VERSION"
    if [[ ! -d "$out" ]]; then
      mkdir -p "$out.tmp"
      for c in source-controller kustomize-controller; do
        cp "$(module_dir "github.com/fluxcd/$c@$FLUX_CONTROLLERS_VERSION")"/config/crd/bases/*.yaml "$out.tmp/"
      done
      chmod -R u+w "$out.tmp"; mv "$out.tmp" "$out"
    fi
    echo "$out" ;;
  external-secrets-crds)
    dir="$(module_dir "github.com/external-secrets/external-secrets@$EXTERNAL_SECRETS_VERSION")"
    [[ -f "$dir/deploy/crds/bundle.yaml" ]] || { echo "tools: $dir/deploy/crds/bundle.yaml not found" >&2; exit 1; }
    echo "$dir/deploy/crds" ;;
  *) echo "usage: hack/tools.sh {kwok|kwok-stages|controller-gen|golangci-lint|source-controller|kustomize-controller|flux|external-secrets|local-path-provisioner|flux-crds|external-secrets-crds}" >&2; exit 2 ;;
esac
