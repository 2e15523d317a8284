#!/usr/bin/env bash
# Installs the Debian packages the network fabric's e2e and benchmark need
# (wg, iptables, ping, ip), and only those still missing, so it is safe to re-run.
set -euo pipefail
need=()
for pkg_cmd in wireguard-tools:wg iptables:iptables iputils-ping:ping iproute2:ip; do
  command -v "${pkg_cmd#*:}" >/dev/null || need+=("${pkg_cmd%%:*}")
done
if ((${#need[@]} == 0)); then
  echo "netdeps: ready (wg, iptables, ping, ip present)" >&2
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "netdeps: missing Debian packages ${need[*]} and not root: run sudo $0, or sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "netdeps: installing ${need[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "netdeps: ready" >&2
