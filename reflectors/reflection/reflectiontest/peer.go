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
