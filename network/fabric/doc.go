// Package fabric is the manager's side of the network fabric: for each
// peering it keeps a WireGuard key in a Secret (the private key never leaves
// the cluster), publishes the parameters the peer's gateway needs, reads the
// peer's, chooses the remap of an overlapping pod CIDR, and runs and watches
// one spillway-gateway process. The ForeignCluster (consumer) and
// ResourceOffer (provider) controllers call it and turn its State into their
// status; it writes no status itself.
package fabric
