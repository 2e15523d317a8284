// Package reflectiontest has the fixtures the reflector packages' unit tests
// share.
package reflectiontest

import (
	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// Milan is the peer rome reflects to in unit tests, in Liqo's default
// network mode.
func Milan() *reflection.Peer {
	return &reflection.Peer{LocalClusterID: "rome-id", RemoteClusterID: "milan-id", RemoteClusterName: "milan",
		NodeName: "liqo-milan", Network: network.DefaultMode}
}
