# Spillway. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
export GOFLAGS := -mod=mod

CLUSTERS ?= rome milan
LAB_DIR ?= .lab
BIN := $(CURDIR)/bin
E2E_TIMEOUT ?= 40m

# The lab's binaries come from cached builds outside the clone (hack/kubebin.sh, hack/tools.sh).
lab-bins = export SPILLWAY_KUBEBIN="$$(hack/kubebin.sh)" SPILLWAY_KWOK="$$(hack/tools.sh kwok)" SPILLWAY_KWOK_STAGES="$$(hack/tools.sh kwok-stages)"

.PHONY: help
help: ## Show this help.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: generate
generate: ## Generate deep-copy code for api/.
	"$$(hack/tools.sh controller-gen)" object:headerFile=hack/boilerplate.go.txt paths=./api/...

.PHONY: manifests
manifests: ## Generate CRDs and RBAC into kustomize/ bases.
	"$$(hack/tools.sh controller-gen)" crd:maxDescLen=0 paths=./api/... output:crd:artifacts:config=kustomize/crd/bases
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

.PHONY: unit
unit: ## Unit tests.
	go test ./...

.PHONY: e2e
e2e: ## End-to-end suites on the lab (real control planes).
	$(lab-bins); go test -tags e2e -timeout $(E2E_TIMEOUT) -p 1 ./e2e/suites/... -ginkgo.v

.PHONY: test
test: fmt vet unit e2e ## Everything CI runs: format, vet, unit and e2e tests.

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
