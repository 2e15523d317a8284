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

// The storage fabric's names. A claim of the virtual class liqo is bound by
// the consumer's manager to a twin claim of a real class: in its own storage
// namespace when the pod runs on a local node, in the namespace's twin on the
// provider when it runs on a virtual node.
const (
	// VirtualStorageClassName is the StorageClass users ask for.
	VirtualStorageClassName = "liqo"
	// VirtualStorageProvisioner is the provisioner of VirtualStorageClassName,
	// served by spillway-controller.
	VirtualStorageProvisioner = "spillway.liqo.io/virtual-storage"
	// DefaultStorageNamespace holds the twins of claims bound on local nodes.
	DefaultStorageNamespace = "liqo-storage"

	// OfferStorageClassKey in the offer ConfigMap is the provider's
	// ResourceOffer spec.storageClassName; absent, the provider's default class.
	OfferStorageClassKey = "storageClass"
	// OfferExternalStorageClassesKey in the offer ConfigMap is the provider's
	// ResourceOffer spec.externalStorageClasses, a JSON list of class names;
	// absent, none.
	OfferExternalStorageClassesKey = "externalStorageClasses"

	// VirtualClaimUIDLabel marks a twin claim with the UID of the virtual
	// claim it serves.
	VirtualClaimUIDLabel = "storage.liqo.io/virtual-claim-uid"
	// VirtualClaimAnnotation names the virtual claim (namespace/name) a twin serves.
	VirtualClaimAnnotation = "storage.liqo.io/virtual-claim"
	// TwinClaimAnnotation on a virtual PersistentVolume names its twin claim:
	// <namespace>/<name> locally, <cluster-id>:<namespace>/<name> on a provider.
	TwinClaimAnnotation = "storage.liqo.io/twin-claim"
	// RemotePhaseAnnotation on the virtual PersistentVolume of a remote claim
	// is the phase of the twin claim on the provider, which binds when the
	// offloaded pod is scheduled there (WaitForFirstConsumer on the provider).
	RemotePhaseAnnotation = "storage.liqo.io/remote-phase"
	// RemoteVolumeAnnotation is the provider's volume the twin claim is bound to.
	RemoteVolumeAnnotation = "storage.liqo.io/remote-volume"
)
