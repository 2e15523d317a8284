#!/usr/bin/env bash
# The main job: lab up (rome, milan), Spillway installed on both, peered from
# the manifests in clusters/. Progress is printed as it goes; a step that does
# not converge in time fails with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
hack/deps.sh
export SPILLWAY_KUBEBIN="$(hack/kubebin.sh)" SPILLWAY_KWOK="$(hack/tools.sh kwok)" SPILLWAY_KWOK_STAGES="$(hack/tools.sh kwok-stages)"
go run ./e2e/demo
