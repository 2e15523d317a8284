#!/usr/bin/env bash
# Benchmarks, never run in CI, each comparing with a baseline in the same run:
# - the network fabric's throughput (raw veth vs WireGuard tunnel vs tunnel +
#   NAT remap; needs root and /dev/net/tun);
# - pod offloading vs vanilla Kubernetes (issue 4): N pods through one virtual
#   node against the same N pods created in the provider, and (issue 16) the
#   same N pods through two hops, rome → the broker genoa → milan, on one lab.
#   SPILLWAY_BENCH_PODS="100 1000 10000" sets N (default "100 1000"),
#   SPILLWAY_BENCH_QPS the creation rate on every path (default 50/s),
#   SPILLWAY_BENCH_TWO_HOPS=0 leaves the broker (a third cluster) out,
#   SPILLWAY_BENCH_REST how long each path's pods sit Running while the lab's
#   CPU at rest is read (default 30s, 0 skips it).
# - reflection latency (issue 5): N ConfigMaps, then N EndpointSlices, updated
#   once; each update timed until a watcher of the consumer sees it (vanilla)
#   and until the provider's copy shows it. SPILLWAY_BENCH_OBJECTS sets N (1000).
# - storage (issue 15): N claims of the virtual class liqo with their pods on
#   the virtual node, timed create → Bound (the virtual claim and its twin on
#   milan), against N claims made directly on milan. SPILLWAY_BENCH_CLAIMS
#   sets N (100).
# - peers (issue 17, target 7): stand-in providers peered with one consumer in
#   steps, each timed commit → virtual node and ForeignCluster Ready, with the
#   consumer manager's goroutines, RSS and CPU per step and the per-peering
#   slope. SPILLWAY_BENCH_PEERS sets the peerings after each step ("1 10 25 50 100").
# The pod benchmark also counts API requests per pod from every API server's
# apiserver_request_total (and each manager's rest_client_requests_total), by
# verb and resource, and profiles rome's manager during the offloaded batch
# (bench/results/pprof/). SPILLWAY_LAB_APISERVER_PROFILING=1 also profiles every
# API server over each path's creation, vanilla included. See docs/performance.md.
# Results: bench/results/ (network-throughput.txt, pods.*, reflection.*, storage.*, peers.*).
set -euo pipefail
cd "$(dirname "$0")/.."
# One lab at a time on the machine, and a benchmark needs the machine: take the
# lock the e2e suites take (COMMON.md), held for the whole run.
if [ -z "${SPILLWAY_BENCH_LOCKED:-}" ]; then
	exec env SPILLWAY_BENCH_LOCKED=1 flock "${SPILLWAY_E2E_LOCK:-/tmp/spillway-e2e.lock}" "$0" "$@"
fi
hack/deps.sh
export SPILLWAY_KUBEBIN="$(hack/kubebin.sh)" SPILLWAY_KWOK="$(hack/tools.sh kwok)" SPILLWAY_KWOK_STAGES="$(hack/tools.sh kwok-stages)"
mkdir -p bench/results
echo "bench: network throughput (SPILLWAY_BENCH_SECONDS=${SPILLWAY_BENCH_SECONDS:-3} per path)"
go test -count=1 -tags bench -run TestThroughput -v ./e2e/suites/network/ | tee bench/results/network-throughput.txt
echo "bench: pod offloading vs vanilla, one hop and two (SPILLWAY_BENCH_PODS=\"${SPILLWAY_BENCH_PODS:-100 1000}\", SPILLWAY_BENCH_TWO_HOPS=${SPILLWAY_BENCH_TWO_HOPS:-1}, SPILLWAY_BENCH_LOCAL=${SPILLWAY_BENCH_LOCAL:-1})"
go run ./e2e/bench/cmd/spillway-podbench
echo "bench: reflection latency vs a local watch (SPILLWAY_BENCH_OBJECTS=${SPILLWAY_BENCH_OBJECTS:-1000} ConfigMaps, then EndpointSlices)"
go run ./e2e/bench/cmd/spillway-reflectbench
echo "bench: claims through the virtual storage class vs directly on the provider (SPILLWAY_BENCH_CLAIMS=${SPILLWAY_BENCH_CLAIMS:-100})"
go run ./e2e/bench/cmd/spillway-storagebench
echo "bench: peerings on one consumer (SPILLWAY_BENCH_PEERS=\"${SPILLWAY_BENCH_PEERS:-1 10 25 50 100}\")"
go run ./e2e/bench/cmd/spillway-peerbench
