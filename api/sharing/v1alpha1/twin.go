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

package v1alpha1

// The namespace-offloading contract. A consumer's identity cannot create
// namespaces on its provider, so it asks: it writes a twin-namespace request
// (a ConfigMap) in its tenant namespace; the provider's tenant-namespace
// controller creates the twin namespace, labels it as the consumer's, binds the
// consumer's ServiceAccount to the offloading ClusterRole inside it, and writes
// the outcome back into the request. Deleting the request removes the twin once
// no pod of the consumer runs there.
const (
	// TwinRequestLabel marks twin-namespace requests (value "true").
	TwinRequestLabel = "liqo.io/twin-namespace-request"
	// TwinRequestPrefix starts a request's name; the rest is the twin's name.
	TwinRequestPrefix = "liqo-twin-"

	// Request keys written by the consumer.
	TwinRemoteNamespaceKey = "remoteNamespace"
	TwinLocalNamespaceKey  = "localNamespace"
	// Outcome keys written by the provider.
	TwinPhaseKey   = "phase"
	TwinMessageKey = "message"

	// Twin phases.
	TwinPhaseReady    = "Ready"
	TwinPhaseConflict = "Conflict"
	TwinPhaseFailed   = "Failed"

	// TwinNamespaceLabel marks a namespace created as a twin; its value is the
	// consumer's cluster ID, and RemoteClusterIDLabel is set too.
	TwinNamespaceLabel = "liqo.io/twin-namespace"
	// BrokerOffloadingLabel marks the NamespaceOffloading a broker generates
	// in a twin (value "true"): the broker's own, updated and deleted with
	// its offer's spec.broker; one without it is never touched.
	BrokerOffloadingLabel = "spillway.liqo.io/broker-offloading"
	// OffloadingClusterRoleName is bound to a consumer inside each of its twins:
	// ShadowPods, reflected objects, and read access to the pods it offloaded.
	OffloadingClusterRoleName = "spillway-remote-offloading"
)

// TwinRequestName is the request ConfigMap's name for a twin namespace.
func TwinRequestName(remoteNamespace string) string {
	return TwinRequestPrefix + remoteNamespace
}
