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

// Package fabric is the manager's side of the network fabric: for each
// peering it keeps a WireGuard key in a Secret (the private key never leaves
// the cluster), publishes the parameters the peer's gateway needs, reads the
// peer's, chooses the remap of an overlapping pod CIDR, and runs and watches
// one spillway-gateway process. The ForeignCluster (consumer) and
// ResourceOffer (provider) controllers call it and turn its State into their
// status; it writes no status itself.
package fabric
