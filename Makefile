# Spillway. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

CLUSTERS ?= rome milan
LAB_DIR ?= .lab
BIN := $(CURDIR)/bin
E2E_TIMEOUT ?= 40m
# Release images: ghcr.io/spillway-dev/spillway-controller:$(VERSION).
VERSION ?= $(shell cat VERSION)
IMAGE_REGISTRY ?= ghcr.io/spillway-dev
# kustomize from the module proxy, pinned, outside this module's graph.
KUSTOMIZE := GOFLAGS= go run sigs.k8s.io/kustomize/kustomize/v5@v5.8.1

# The lab's binaries come from cached builds outside the clone (hack/kubebin.sh, hack/tools.sh).
lab-bins = export SPILLWAY_KUBEBIN="$$(hack/kubebin.sh)" SPILLWAY_KWOK="$$(hack/tools.sh kwok)" SPILLWAY_KWOK_STAGES="$$(hack/tools.sh kwok-stages)"

.PHONY: help
help: ## Show this help.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: generate
generate: ## Generate deep-copy code for api/.
	"$$(hack/tools.sh controller-gen)" object:headerFile=hack/boilerplate.go.txt paths=./api/...

# The CRDs people write keep their field descriptions, for kubectl explain.
# ShadowPod embeds a whole PodSpec: with descriptions it would exceed the
# 256 KiB that client-side kubectl apply can annotate.
.PHONY: manifests
manifests: ## Generate CRDs and RBAC into kustomize/ bases.
	"$$(hack/tools.sh controller-gen)" crd paths="./api/discovery/...;./api/offloading/...;./api/sharing/..." output:crd:artifacts:config=kustomize/crd/bases
	"$$(hack/tools.sh controller-gen)" crd:maxDescLen=0 paths=./api/virtualkubelet/... output:crd:artifacts:config=kustomize/crd/bases
	"$$(hack/tools.sh controller-gen)" rbac:roleName=spillway-controller paths="./controllers/...;./webhooks/..." output:rbac:artifacts:config=kustomize/rbac

.PHONY: fmt
fmt: ## Check formatting (gofmt -l must print nothing).
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [[ -n "$$out" ]]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

.PHONY: vet
vet: ## go vet, with and without the e2e tag.
	go vet ./...
	go vet -tags e2e ./e2e/...

.PHONY: build
build: ## Build the binaries into bin/.
	go build -o $(BIN)/ ./cmd/... ./e2e/lab/cmd/...

.PHONY: image
image: ## OCI images of spillway-controller and spillway-gateway into bin/images (no Docker needed).
	go run ./hack/image --version $(VERSION) --registry $(IMAGE_REGISTRY) --out $(BIN)/images

.PHONY: release-manifests
release-manifests: ## bin/release/spillway-$(VERSION).yaml: the install with $(IMAGE_REGISTRY) images at $(VERSION).
	rm -rf $(BIN)/release/overlay && mkdir -p $(BIN)/release/overlay
	printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../../kustomize/default\n' > $(BIN)/release/overlay/kustomization.yaml
	cd $(BIN)/release/overlay && $(KUSTOMIZE) edit set image ghcr.io/spillway-dev/spillway-controller=$(IMAGE_REGISTRY)/spillway-controller:$(VERSION)
	$(KUSTOMIZE) build $(BIN)/release/overlay > $(BIN)/release/spillway-$(VERSION).yaml
	@echo "wrote $(BIN)/release/spillway-$(VERSION).yaml"

.PHONY: set-image
set-image: ## Point kustomize/manager at IMG (default: the release image): kustomize edit set image.
	cd kustomize/manager && $(KUSTOMIZE) edit set image ghcr.io/spillway-dev/spillway-controller=$${IMG:-$(IMAGE_REGISTRY)/spillway-controller:$(VERSION)}

.PHONY: unit
unit: ## Unit tests, under the race detector: handlers and registries run concurrently.
	go test -race ./...

.PHONY: verify
verify: generate manifests ## Fail if generated code, manifests or go.mod/go.sum differ from what is committed.
	GONOSUMDB=k8s.io go mod tidy
	@drift="$$(git status --porcelain --untracked-files=all -- api kustomize go.mod go.sum)"; \
	if [[ -n "$$drift" ]]; then \
	  echo "verify: these files differ from what 'make generate manifests' and 'go mod tidy' produce:" >&2; \
	  echo "$$drift" >&2; git --no-pager diff --stat -- api kustomize go.mod go.sum >&2; \
	  echo "verify: run 'make generate manifests' and 'GONOSUMDB=k8s.io go mod tidy', then commit the result" >&2; exit 1; \
	fi

.PHONY: lint
lint: ## golangci-lint with .golangci.yml, at the version hack/tools.sh pins.
	"$$(hack/tools.sh golangci-lint)" run ./...

.PHONY: e2e
e2e: ## End-to-end suites on the lab (real control planes).
	$(lab-bins); go test -tags e2e -timeout $(E2E_TIMEOUT) -p 1 ./e2e/suites/... -ginkgo.v

.PHONY: faults
faults: ## The fault suite at full length (5-8 min outages, 100 peerings; not in CI, which runs its short version).
	$(lab-bins); SPILLWAY_FAULTS=long go test -v -tags e2e -timeout 150m -p 1 ./e2e/suites/faults/ -ginkgo.v

.PHONY: test
test: fmt vet verify lint unit e2e ## Everything CI runs: format, vet, generated files, lint, unit and e2e tests.

.PHONY: lab-up
lab-up: build ## Start the lab clusters: make lab-up CLUSTERS="rome milan".
	$(lab-bins); $(BIN)/spillway-lab up --dir $(LAB_DIR) --clusters "$(CLUSTERS)"

.PHONY: lab-down
lab-down: ## Stop every lab process and remove the lab state.
	go run ./e2e/lab/cmd/spillway-lab down --dir $(LAB_DIR)

.PHONY: lab-status
lab-status: ## Show the lab's clusters and components.
	go run ./e2e/lab/cmd/spillway-lab status --dir $(LAB_DIR)

.PHONY: demo
demo: ## The main job: rome and milan on real Flux and External Secrets, peered from git, a pod offloaded.
	hack/demo.sh

.PHONY: bench
bench: ## Benchmarks against vanilla Kubernetes (not in CI).
	hack/bench.sh
