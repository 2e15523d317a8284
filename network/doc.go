/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package network is the platform-independent half of Spillway's network
// fabric: the IPAM that gives a remote pod CIDR overlapping local ranges a
// remapped CIDR, the registry behind MapRemoteIP that reflectors consult to
// translate remote pod IPs, the external-network modes that decide what is
// reflected, and WireGuard key handling. It has no Linux dependencies so that
// reflectors can import it; devices, NAT, routes and probes live in
// network/gateway.
package network
