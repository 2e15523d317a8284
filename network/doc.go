// Package network is the platform-independent half of Spillway's network
// fabric: the IPAM that gives a remote pod CIDR overlapping local ranges a
// remapped CIDR, the registry behind MapRemoteIP that reflectors consult to
// translate remote pod IPs, the external-network modes that decide what is
// reflected, and WireGuard key handling. It has no Linux dependencies so that
// reflectors can import it; devices, NAT, routes and probes live in
// network/gateway.
package network
