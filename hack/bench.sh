#!/usr/bin/env bash
# Benchmarks, never run in CI. Today: the network fabric's throughput (raw veth
# vs WireGuard tunnel vs tunnel + NAT remap, same run; needs root and
# /dev/net/tun). The pod-offloading benchmark against vanilla Kubernetes
# (issue 4) is not written yet, and this script says so rather than pretend.
set -euo pipefail
cd "$(dirname "$0")/.."
hack/deps.sh
export GOFLAGS=-mod=mod
mkdir -p bench/results
echo "bench: network throughput (SPILLWAY_BENCH_SECONDS=${SPILLWAY_BENCH_SECONDS:-3} per path)"
go test -count=1 -tags bench -run TestThroughput -v ./e2e/suites/network/ | tee bench/results/network-throughput.txt
echo "bench: pod offloading vs vanilla (issue 4) is not implemented yet" >&2
