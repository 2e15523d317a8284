#!/usr/bin/env bash
# Benchmarks (issue 4): offloaded pods vs vanilla Kubernetes in the same run.
set -euo pipefail
echo "bench: not implemented yet (issue 4: needs the virtual kubelet)" >&2
exit 1
