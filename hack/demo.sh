#!/usr/bin/env bash
# The main job, a Flux user's day one: lab up (rome, milan), Flux and External
# Secrets on both, the fleet (clusters/, kustomize/) pushed to the lab's git
# server; Flux applies every Spillway object, External Secrets carries the
# credentials, nginx ends up Running on liqo-milan. Progress is printed as it
# goes; a step that does not converge in time fails with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
hack/deps.sh
export SPILLWAY_KUBEBIN="$(hack/kubebin.sh)" SPILLWAY_KWOK="$(hack/tools.sh kwok)" SPILLWAY_KWOK_STAGES="$(hack/tools.sh kwok-stages)"
go run ./e2e/demo
