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

package policies

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// Annotations Kubernetes' volume binding uses, read and written by the
// virtual storage class's provisioner.
const (
	// SelectedNodeAnnotation is set by the scheduler on a WaitForFirstConsumer
	// claim when it picks its first pod's node.
	SelectedNodeAnnotation = "volume.kubernetes.io/selected-node"
	// ProvisionedByAnnotation names a volume's provisioner.
	ProvisionedByAnnotation = "pv.kubernetes.io/provisioned-by"
)

// StorageBinding is where a claim of the virtual storage class is bound: on
// the local node its first pod was scheduled to, or on the provider behind
// the virtual node it was scheduled to.
type StorageBinding struct {
	// Node is the node the scheduler selected.
	Node string
	// Remote is true for a virtual node.
	Remote bool
	// ClusterID is the provider's cluster ID when Remote.
	ClusterID string
}

// StorageBindingFor decides where a claim whose first pod was scheduled on
// node is bound. A virtual node without its provider's cluster ID is an
// error: the claim would have no cluster to live in.
func StorageBindingFor(node *corev1.Node) (StorageBinding, error) {
	if node == nil {
		return StorageBinding{}, fmt.Errorf("no node: the claim's %s annotation names a node that does not exist", SelectedNodeAnnotation)
	}
	b := StorageBinding{Node: node.Name}
	if node.Labels[virtualkubeletv1alpha1.TypeLabel] != virtualkubeletv1alpha1.TypeVirtualNode {
		return b, nil
	}
	b.Remote, b.ClusterID = true, node.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel]
	if b.ClusterID == "" {
		return b, fmt.Errorf("virtual node %s has no %s label: its provider is unknown, so the claim cannot be bound there",
			node.Name, virtualkubeletv1alpha1.RemoteClusterIDLabel)
	}
	return b, nil
}

// LocalTwinClaimName names the twin, in the storage namespace, of the
// virtual claim with this UID: unique however long the claim's own name is,
// and never reused by a claim of the same name made again.
func LocalTwinClaimName(virtualUID string) string { return "pvc-" + virtualUID }

// VirtualVolumeName names the virtual PersistentVolume of a virtual claim, as
// external provisioners name theirs.
func VirtualVolumeName(virtualUID string) string { return "pvc-" + virtualUID }

// TwinClaim is the real claim behind a virtual one, in namespace ns with
// name, of the class (nil: the cluster's default). It asks for what the
// virtual claim asks (access modes, size, volume mode, data source kept out:
// it would name an object of the consumer's namespace). selectedNode, when
// set, is handed to the real class's provisioner as the scheduler would.
func TwinClaim(virtual *corev1.PersistentVolumeClaim, ns, name string, class *string, selectedNode string) *corev1.PersistentVolumeClaim {
	twin := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels:      map[string]string{sharingv1alpha1.VirtualClaimUIDLabel: string(virtual.UID)},
			Annotations: map[string]string{sharingv1alpha1.VirtualClaimAnnotation: virtual.Namespace + "/" + virtual.Name},
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      append([]corev1.PersistentVolumeAccessMode(nil), virtual.Spec.AccessModes...),
			Resources:        *virtual.Spec.Resources.DeepCopy(),
			VolumeMode:       virtual.Spec.VolumeMode,
			StorageClassName: class,
		},
	}
	if selectedNode != "" {
		twin.Annotations[SelectedNodeAnnotation] = selectedNode
	}
	return twin
}

// MirrorLocalVolume is the virtual PersistentVolume of a claim bound on a
// local node: the real volume's source, capacity and node affinity (so every
// later pod of the claim is scheduled where the data is), bound to the
// virtual claim, with the virtual class's reclaim policy.
func MirrorLocalVolume(virtual *corev1.PersistentVolumeClaim, twin *corev1.PersistentVolumeClaim, real *corev1.PersistentVolume,
	reclaim corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
	pv := virtualVolume(virtual, reclaim)
	pv.Annotations[sharingv1alpha1.TwinClaimAnnotation] = TwinClaimRef{Namespace: twin.Namespace, Name: twin.Name}.String()
	pv.Spec.PersistentVolumeSource = *real.Spec.PersistentVolumeSource.DeepCopy()
	pv.Spec.Capacity = real.Spec.Capacity.DeepCopy()
	pv.Spec.NodeAffinity = real.Spec.NodeAffinity.DeepCopy()
	if real.Spec.VolumeMode != nil {
		pv.Spec.VolumeMode = real.Spec.VolumeMode
	}
	pv.Spec.MountOptions = append([]string(nil), real.Spec.MountOptions...)
	return pv
}

// MirrorRemoteVolume is the virtual PersistentVolume of a claim bound on a
// provider: node affinity to the virtual node (data gravity), the claim's
// size, and a local source no kubelet mounts (pods on a virtual node run on
// the provider, where the twin claim is). The twin claim binds on the
// provider when the offloaded pod is scheduled there, so the volume is made
// before it; its phase and volume are kept in annotations.
func MirrorRemoteVolume(virtual *corev1.PersistentVolumeClaim, b StorageBinding, twinNamespace string,
	reclaim corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
	pv := virtualVolume(virtual, reclaim)
	pv.Annotations[sharingv1alpha1.TwinClaimAnnotation] = TwinClaimRef{ClusterID: b.ClusterID, Namespace: twinNamespace, Name: virtual.Name}.String()
	pv.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] = b.ClusterID
	pv.Spec.Capacity = corev1.ResourceList{corev1.ResourceStorage: virtual.Spec.Resources.Requests[corev1.ResourceStorage]}
	pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{
		Path: "/liqo/" + b.ClusterID + "/" + twinNamespace + "/" + virtual.Name}}
	pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{b.Node}}},
	}}}}
	return pv
}

// virtualVolume is what both mirrors share: the name, the provisioner, the
// class, the access modes and the binding to the claim.
func virtualVolume(virtual *corev1.PersistentVolumeClaim, reclaim corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
	if reclaim == "" {
		reclaim = corev1.PersistentVolumeReclaimDelete
	}
	fs := corev1.PersistentVolumeFilesystem
	mode := &fs
	if virtual.Spec.VolumeMode != nil {
		mode = virtual.Spec.VolumeMode
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        VirtualVolumeName(string(virtual.UID)),
			Labels:      map[string]string{sharingv1alpha1.VirtualClaimUIDLabel: string(virtual.UID)},
			Annotations: map[string]string{ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName:              volumeClass(virtual),
			AccessModes:                   append([]corev1.PersistentVolumeAccessMode(nil), virtual.Spec.AccessModes...),
			PersistentVolumeReclaimPolicy: reclaim,
			VolumeMode:                    mode,
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: virtual.Namespace, Name: virtual.Name, UID: virtual.UID},
		},
	}
}

// volumeClass is the virtual volume's class: the claim's, which the
// kube-controller-manager requires to bind them (liqo, or the external class
// of a reflected claim).
func volumeClass(virtual *corev1.PersistentVolumeClaim) string {
	if virtual.Spec.StorageClassName == nil || *virtual.Spec.StorageClassName == "" {
		return sharingv1alpha1.VirtualStorageClassName
	}
	return *virtual.Spec.StorageClassName
}

// RemoteVolumeAnnotations are the annotations that show, on a remote
// claim's virtual volume, how its twin on the provider stands.
func RemoteVolumeAnnotations(twin *corev1.PersistentVolumeClaim) map[string]string {
	return map[string]string{
		sharingv1alpha1.RemotePhaseAnnotation:  string(twin.Status.Phase),
		sharingv1alpha1.RemoteVolumeAnnotation: twin.Spec.VolumeName,
	}
}

// TwinClaimRef names a virtual volume's twin claim: in this cluster when
// ClusterID is empty, else on that provider.
type TwinClaimRef struct {
	ClusterID, Namespace, Name string
}

// Remote reports whether the twin is on a provider.
func (t TwinClaimRef) Remote() bool { return t.ClusterID != "" }

// String is the annotation's form: [<cluster-id>:]<namespace>/<name>.
func (t TwinClaimRef) String() string {
	if t.Remote() {
		return t.ClusterID + ":" + t.Namespace + "/" + t.Name
	}
	return t.Namespace + "/" + t.Name
}

// ParseTwinClaim reads a virtual volume's twin claim annotation. Anyone who
// may write volumes can edit it, so every part is checked: a name that is not
// a valid namespace or claim name is an error, not a request to some object.
func ParseTwinClaim(s string) (TwinClaimRef, error) {
	var t TwinClaimRef
	rest := s
	if id, after, ok := strings.Cut(s, ":"); ok {
		if id == "" {
			return t, fmt.Errorf("%s %q: the cluster ID before ':' is empty", sharingv1alpha1.TwinClaimAnnotation, s)
		}
		t.ClusterID, rest = id, after
	}
	ns, name, ok := strings.Cut(rest, "/")
	if !ok {
		return t, fmt.Errorf("%s %q: want [<cluster-id>:]<namespace>/<name>", sharingv1alpha1.TwinClaimAnnotation, s)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return t, fmt.Errorf("%s %q: namespace %q: %s", sharingv1alpha1.TwinClaimAnnotation, s, ns, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return t, fmt.Errorf("%s %q: claim name %q: %s", sharingv1alpha1.TwinClaimAnnotation, s, name, strings.Join(errs, "; "))
	}
	t.Namespace, t.Name = ns, name
	return t, nil
}

// TwinClaimNameOn is the name, on the provider clusterID in its namespace
// remoteNamespace, of the twin behind a virtual volume, when the volume is
// one of Spillway's whose twin is there. An offloaded pod's claim volumes
// must name the twin: usually the claim's own name, but not for a claim
// moved there (VolumeMove), whose twin was made for the move's target claim.
func TwinClaimNameOn(pv *corev1.PersistentVolume, clusterID, remoteNamespace string) (string, bool) {
	if pv.Annotations[ProvisionedByAnnotation] != sharingv1alpha1.VirtualStorageProvisioner {
		return "", false
	}
	ref, err := ParseTwinClaim(pv.Annotations[sharingv1alpha1.TwinClaimAnnotation])
	if err != nil || ref.ClusterID != clusterID || ref.Namespace != remoteNamespace {
		return "", false
	}
	return ref.Name, true
}

// ReclaimVirtualVolume reports whether a volume is a virtual one whose claim
// is gone and whose policy is Delete: its twin and itself are to be deleted.
// Retain keeps both, as Kubernetes keeps a retained volume.
func ReclaimVirtualVolume(pv *corev1.PersistentVolume) bool {
	return pv.Annotations[ProvisionedByAnnotation] == sharingv1alpha1.VirtualStorageProvisioner &&
		pv.DeletionTimestamp.IsZero() &&
		pv.Status.Phase == corev1.VolumeReleased &&
		pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete
}

// ClaimResize is what one reconcile does for a bound virtual claim whose
// request grew: ask the twin for the new size, then, once the twin's
// capacity shows it, grow the virtual volume and the claim's capacity.
type ClaimResize struct {
	// GrowTwin asks the twin claim for Request.
	GrowTwin bool
	Request  resource.Quantity
	// GrowVolume sets Capacity on the virtual volume and the claim's status.
	GrowVolume bool
	Capacity   resource.Quantity
}

// ResizeFor compares a bound virtual claim, its twin and its virtual volume.
// Claims only grow (Kubernetes refuses shrinking a claim), so a twin asking
// for more than the virtual claim is left alone.
func ResizeFor(virtual, twin *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) ClaimResize {
	var r ClaimResize
	want := virtual.Spec.Resources.Requests.Storage()
	if twin.Spec.Resources.Requests.Storage().Cmp(*want) < 0 {
		r.GrowTwin, r.Request = true, want.DeepCopy()
	}
	got := twin.Status.Capacity.Storage()
	if twin.Status.Phase == corev1.ClaimBound && !got.IsZero() && got.Cmp(*pv.Spec.Capacity.Storage()) > 0 {
		r.GrowVolume, r.Capacity = true, got.DeepCopy()
	}
	return r
}

// OfferedClaimClasses are the classes a provider lets one consumer's claims
// in its twins have.
type OfferedClaimClasses struct {
	// Virtual is the class of the consumer's liqo claims whose pods run here:
	// the offer's spec.storageClassName, else the provider's default class,
	// "" when there is neither.
	Virtual string
	// External are the offer's spec.externalStorageClasses, which the
	// consumer's claims may name directly.
	External []string
}

// TwinClaimProblem says why a provider refuses a claim a consumer writes
// into its twin, or "" when it may be written. A claim in a twin must get a
// new volume of a class the provider offers: spec.volumeName or
// spec.selector could bind a volume of the provider's that holds someone
// else's data, and a data source copies from an object the consumer names.
// The class must be classes.Virtual or one of classes.External; a claim
// without a class is refused (it binds any classless volume). The API
// server's defaulting has run before this check, so a claim that left its
// class out carries the default one here. old is the claim before an
// update, nil on create: the rest of the spec is immutable then, but
// spec.volumeName may still be set once, which only the provider's
// volume binding may do.
func TwinClaimProblem(pvc, old *corev1.PersistentVolumeClaim, classes OfferedClaimClasses) string {
	who := fmt.Sprintf("PersistentVolumeClaim %s/%s", pvc.Namespace, pvc.Name)
	if pvc.Spec.VolumeName != "" && (old == nil || old.Spec.VolumeName != pvc.Spec.VolumeName) {
		return fmt.Sprintf("%s sets spec.volumeName %q: a consumer's claim may not bind a volume of the provider's; leave it empty and the offered class makes one", who, pvc.Spec.VolumeName)
	}
	if old != nil {
		return ""
	}
	switch {
	case pvc.Spec.Selector != nil:
		return fmt.Sprintf("%s sets spec.selector: a consumer's claim may not pick volumes of the provider's; remove it", who)
	case pvc.Spec.DataSource != nil || pvc.Spec.DataSourceRef != nil:
		return fmt.Sprintf("%s sets spec.dataSource or spec.dataSourceRef: a consumer's claim starts empty on a provider; remove them", who)
	case pvc.Spec.StorageClassName != nil && slices.Contains(classes.External, *pvc.Spec.StorageClassName):
		return ""
	case classes.Virtual == "" && len(classes.External) == 0:
		return fmt.Sprintf("%s: this provider offers no storage class (its ResourceOffer has no spec.storageClassName nor spec.externalStorageClasses and it has no default class), so it takes no claims; ask its administrators for one", who)
	case pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName != classes.Virtual || classes.Virtual == "":
		got := "none"
		if pvc.Spec.StorageClassName != nil {
			got = fmt.Sprintf("%q", *pvc.Spec.StorageClassName)
		}
		return fmt.Sprintf("%s has spec.storageClassName %s: this provider offers %s; use one of them, or ask its administrators to add the class to spec.externalStorageClasses of the ResourceOffer for your cluster",
			who, got, offeredClassesText(classes))
	}
	return ""
}

// offeredClassesText names what a provider offers, for refusals.
func offeredClassesText(classes OfferedClaimClasses) string {
	var parts []string
	if classes.Virtual != "" {
		parts = append(parts, fmt.Sprintf("class %q for liqo claims (spec.storageClassName, or its default class)", classes.Virtual))
	}
	if len(classes.External) > 0 {
		parts = append(parts, fmt.Sprintf("classes %q to claim directly (spec.externalStorageClasses)", classes.External))
	}
	return strings.Join(parts, " and ")
}

// TwinLost is the remote phase annotation of a virtual volume whose twin
// claim is gone.
const TwinLost = "Lost"

// RemotePollInterval is how often a remote twin that is not bound (or is
// being resized) is read, by how long its virtual volume has existed: the
// provider is not watched, and a twin usually binds within seconds, when
// the offloaded pod is scheduled there; one whose pod never comes is read
// every 30 s, not every 3 s for ever.
func RemotePollInterval(age time.Duration) time.Duration {
	if age < 2*time.Minute {
		return 3 * time.Second
	}
	return 30 * time.Second
}
