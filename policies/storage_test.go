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
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func storageNode(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestStorageBindingFor(t *testing.T) {
	virtual := map[string]string{virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode,
		virtualkubeletv1alpha1.RemoteClusterIDLabel: "milan-id"}
	for _, tc := range []struct {
		name    string
		node    *corev1.Node
		want    StorageBinding
		wantErr string
	}{
		{name: "a local node binds locally", node: storageNode("rome-worker-0", map[string]string{corev1.LabelHostname: "rome-worker-0"}),
			want: StorageBinding{Node: "rome-worker-0"}},
		{name: "a virtual node binds on its provider", node: storageNode("liqo-milan", virtual),
			want: StorageBinding{Node: "liqo-milan", Remote: true, ClusterID: "milan-id"}},
		{name: "a virtual node without its provider's ID is an error",
			node:    storageNode("liqo-x", map[string]string{virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode}),
			wantErr: "has no liqo.io/remote-cluster-id label"},
		{name: "a provider's cluster ID on a physical node does not make it virtual",
			node: storageNode("n", map[string]string{virtualkubeletv1alpha1.RemoteClusterIDLabel: "x"}), want: StorageBinding{Node: "n"}},
		{name: "no node", node: nil, wantErr: "names a node that does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StorageBindingFor(tc.node)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("StorageBindingFor = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func virtualClaim() *corev1.PersistentVolumeClaim {
	block := corev1.PersistentVolumeBlock
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data-db-0", Namespace: "liqo-demo", UID: "uid-1",
			Annotations: map[string]string{SelectedNodeAnnotation: "rome-worker-0"}},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(sharingv1alpha1.VirtualStorageClassName),
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}},
			VolumeMode:       &block,
			DataSource:       &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "other"},
		},
	}
}

func TestTwinClaim(t *testing.T) {
	v := virtualClaim()
	for _, tc := range []struct {
		name         string
		class        *string
		selectedNode string
	}{
		{name: "local twin: the real class, handed the node", class: ptr.To("local-path"), selectedNode: "rome-worker-0"},
		{name: "remote twin: the provider's default class, no node", class: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			twin := TwinClaim(v, "ns", "twin", tc.class, tc.selectedNode)
			if twin.Namespace != "ns" || twin.Name != "twin" {
				t.Errorf("twin is %s/%s, want ns/twin", twin.Namespace, twin.Name)
			}
			if !reflect.DeepEqual(twin.Spec.StorageClassName, tc.class) {
				t.Errorf("class = %v, want %v", twin.Spec.StorageClassName, tc.class)
			}
			if got := twin.Annotations[SelectedNodeAnnotation]; got != tc.selectedNode {
				t.Errorf("selected node = %q, want %q", got, tc.selectedNode)
			}
			if twin.Labels[sharingv1alpha1.VirtualClaimUIDLabel] != "uid-1" || twin.Annotations[sharingv1alpha1.VirtualClaimAnnotation] != "liqo-demo/data-db-0" {
				t.Errorf("twin does not name its virtual claim: %v %v", twin.Labels, twin.Annotations)
			}
			if !twin.Spec.Resources.Requests.Storage().Equal(resource.MustParse("2Gi")) || *twin.Spec.VolumeMode != corev1.PersistentVolumeBlock ||
				!reflect.DeepEqual(twin.Spec.AccessModes, v.Spec.AccessModes) {
				t.Errorf("twin does not ask what the virtual claim asks: %+v", twin.Spec)
			}
			if twin.Spec.DataSource != nil {
				t.Error("the data source names an object of the consumer's namespace and must not be copied")
			}
		})
	}
}

func hostAffinity(host string) *corev1.VolumeNodeAffinity {
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{host}}}}}}}
}

func TestMirrorVolumes(t *testing.T) {
	v := virtualClaim()
	twin := TwinClaim(v, "liqo-storage", "pvc-uid-1", ptr.To("local-path"), "rome-worker-0")
	real := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-real"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("3Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/opt/x"}},
			NodeAffinity:           hostAffinity("rome-worker-0"),
			MountOptions:           []string{"noatime"},
		}}
	for _, tc := range []struct {
		name         string
		pv           *corev1.PersistentVolume
		wantAffinity *corev1.VolumeNodeAffinity
		wantTwin     string
		wantCapacity string
		wantReclaim  corev1.PersistentVolumeReclaimPolicy
		check        func(t *testing.T, pv *corev1.PersistentVolume)
	}{
		{name: "local: the real volume's source, capacity and node", pv: MirrorLocalVolume(v, twin, real, corev1.PersistentVolumeReclaimRetain),
			wantAffinity: hostAffinity("rome-worker-0"), wantTwin: "liqo-storage/pvc-uid-1", wantCapacity: "3Gi", wantReclaim: corev1.PersistentVolumeReclaimRetain,
			check: func(t *testing.T, pv *corev1.PersistentVolume) {
				if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != "/opt/x" || !reflect.DeepEqual(pv.Spec.MountOptions, []string{"noatime"}) {
					t.Errorf("source not mirrored: %+v", pv.Spec)
				}
			}},
		{name: "remote: held to the virtual node, the claim's size, an unmounted local source",
			pv:           MirrorRemoteVolume(v, StorageBinding{Node: "liqo-milan", Remote: true, ClusterID: "milan-id"}, "liqo-demo", ""),
			wantAffinity: hostAffinity("liqo-milan"), wantTwin: "milan-id:liqo-demo/data-db-0", wantCapacity: "2Gi", wantReclaim: corev1.PersistentVolumeReclaimDelete,
			check: func(t *testing.T, pv *corev1.PersistentVolume) {
				if pv.Spec.Local == nil || pv.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] != "milan-id" {
					t.Errorf("remote volume: %+v %v", pv.Spec.PersistentVolumeSource, pv.Labels)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := tc.pv
			if pv.Name != "pvc-uid-1" || pv.Spec.StorageClassName != sharingv1alpha1.VirtualStorageClassName ||
				pv.Annotations[ProvisionedByAnnotation] != sharingv1alpha1.VirtualStorageProvisioner {
				t.Errorf("not a virtual volume of the liqo class: %s %s %v", pv.Name, pv.Spec.StorageClassName, pv.Annotations)
			}
			ref := pv.Spec.ClaimRef
			if ref == nil || ref.Namespace != "liqo-demo" || ref.Name != "data-db-0" || ref.UID != "uid-1" {
				t.Errorf("claimRef = %+v, want the virtual claim with its UID", ref)
			}
			if !reflect.DeepEqual(pv.Spec.NodeAffinity, tc.wantAffinity) {
				t.Errorf("node affinity = %+v, want %+v", pv.Spec.NodeAffinity, tc.wantAffinity)
			}
			if got := pv.Annotations[sharingv1alpha1.TwinClaimAnnotation]; got != tc.wantTwin {
				t.Errorf("twin annotation = %q, want %q", got, tc.wantTwin)
			}
			if !pv.Spec.Capacity.Storage().Equal(resource.MustParse(tc.wantCapacity)) {
				t.Errorf("capacity = %s, want %s", pv.Spec.Capacity.Storage(), tc.wantCapacity)
			}
			if pv.Spec.PersistentVolumeReclaimPolicy != tc.wantReclaim {
				t.Errorf("reclaim = %s, want %s", pv.Spec.PersistentVolumeReclaimPolicy, tc.wantReclaim)
			}
			if *pv.Spec.VolumeMode != corev1.PersistentVolumeBlock {
				t.Errorf("volume mode = %s, want the claim's Block", *pv.Spec.VolumeMode)
			}
			tc.check(t, pv)
		})
	}
}

func TestParseTwinClaim(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    TwinClaimRef
		wantErr string
	}{
		{in: "liqo-storage/pvc-1", want: TwinClaimRef{Namespace: "liqo-storage", Name: "pvc-1"}},
		{in: "milan-id:liqo-demo/data.db-0", want: TwinClaimRef{ClusterID: "milan-id", Namespace: "liqo-demo", Name: "data.db-0"}},
		{in: "", wantErr: "want [<cluster-id>:]<namespace>/<name>"},
		{in: ":ns/name", wantErr: "cluster ID before ':' is empty"},
		{in: "id:../x", wantErr: "namespace \"..\""},
		{in: "ns/", wantErr: "claim name \"\""},
		{in: "ns/a/b", wantErr: "claim name \"a/b\""},
	} {
		got, err := ParseTwinClaim(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseTwinClaim(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTwinClaim(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("String() = %q, want %q back", got.String(), tc.in)
		}
	}
}

func FuzzParseTwinClaim(f *testing.F) {
	for _, s := range []string{"liqo-storage/pvc-1", "id:ns/n", ":", "a:b:c/d", "ns//", "x:y/z/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := ParseTwinClaim(s)
		if err != nil {
			return
		}
		back, err := ParseTwinClaim(ref.String())
		if err != nil || back != ref {
			t.Fatalf("%q parsed to %+v, which does not round-trip: %+v, %v", s, ref, back, err)
		}
		if strings.Contains(ref.Namespace, "/") || strings.Contains(ref.Name, "/") {
			t.Fatalf("%q: a part holds a slash: %+v", s, ref)
		}
	})
}

func TestReclaimVirtualVolume(t *testing.T) {
	ours := map[string]string{ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner}
	pv := func(ann map[string]string, phase corev1.PersistentVolumePhase, reclaim corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Annotations: ann},
			Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: reclaim}, Status: corev1.PersistentVolumeStatus{Phase: phase}}
	}
	for _, tc := range []struct {
		name string
		pv   *corev1.PersistentVolume
		want bool
	}{
		{"released, Delete: reclaimed", pv(ours, corev1.VolumeReleased, corev1.PersistentVolumeReclaimDelete), true},
		{"released, Retain: kept", pv(ours, corev1.VolumeReleased, corev1.PersistentVolumeReclaimRetain), false},
		{"bound: kept", pv(ours, corev1.VolumeBound, corev1.PersistentVolumeReclaimDelete), false},
		{"another provisioner's: not ours to touch", pv(map[string]string{ProvisionedByAnnotation: "rancher.io/local-path"}, corev1.VolumeReleased, corev1.PersistentVolumeReclaimDelete), false},
	} {
		if got := ReclaimVirtualVolume(tc.pv); got != tc.want {
			t.Errorf("%s: ReclaimVirtualVolume = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestResizeFor(t *testing.T) {
	claimOf := func(request, capacity string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(request)}}}, Status: corev1.PersistentVolumeClaimStatus{Phase: phase}}
		if capacity != "" {
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
		}
		return c
	}
	volume := func(capacity string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}}}
	}
	for _, tc := range []struct {
		name          string
		virtual, twin *corev1.PersistentVolumeClaim
		pv            *corev1.PersistentVolume
		growTwin      string
		growVolume    string
	}{
		{name: "same size: nothing", virtual: claimOf("1Gi", "1Gi", corev1.ClaimBound), twin: claimOf("1Gi", "1Gi", corev1.ClaimBound), pv: volume("1Gi")},
		{name: "the claim grew: the twin asks for it", virtual: claimOf("2Gi", "1Gi", corev1.ClaimBound), twin: claimOf("1Gi", "1Gi", corev1.ClaimBound), pv: volume("1Gi"),
			growTwin: "2Gi"},
		{name: "the twin grew: the volume follows", virtual: claimOf("2Gi", "1Gi", corev1.ClaimBound), twin: claimOf("2Gi", "2Gi", corev1.ClaimBound), pv: volume("1Gi"),
			growVolume: "2Gi"},
		{name: "the twin is being resized: wait", virtual: claimOf("2Gi", "1Gi", corev1.ClaimBound), twin: claimOf("2Gi", "1Gi", corev1.ClaimBound), pv: volume("1Gi")},
		{name: "a twin asking for more is not shrunk", virtual: claimOf("1Gi", "1Gi", corev1.ClaimBound), twin: claimOf("3Gi", "1Gi", corev1.ClaimBound), pv: volume("1Gi")},
		{name: "an unbound remote twin shows no capacity yet", virtual: claimOf("1Gi", "1Gi", corev1.ClaimBound), twin: claimOf("1Gi", "", corev1.ClaimPending), pv: volume("1Gi")},
		{name: "a provider giving more than asked grows the volume", virtual: claimOf("1Gi", "1Gi", corev1.ClaimBound), twin: claimOf("1Gi", "5Gi", corev1.ClaimBound), pv: volume("1Gi"),
			growVolume: "5Gi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ResizeFor(tc.virtual, tc.twin, tc.pv)
			if got.GrowTwin != (tc.growTwin != "") || (tc.growTwin != "" && !got.Request.Equal(resource.MustParse(tc.growTwin))) {
				t.Errorf("GrowTwin = %v %s, want %q", got.GrowTwin, got.Request.String(), tc.growTwin)
			}
			if got.GrowVolume != (tc.growVolume != "") || (tc.growVolume != "" && !got.Capacity.Equal(resource.MustParse(tc.growVolume))) {
				t.Errorf("GrowVolume = %v %s, want %q", got.GrowVolume, got.Capacity.String(), tc.growVolume)
			}
		})
	}
}

func TestTwinClaimProblem(t *testing.T) {
	claim := func(f func(*corev1.PersistentVolumeClaimSpec)) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo-rome", Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("milan-ssd")}}
		if f != nil {
			f(&c.Spec)
		}
		return c
	}
	ssd := OfferedClaimClasses{Virtual: "milan-ssd"}
	withDisk := OfferedClaimClasses{Virtual: "milan-ssd", External: []string{"remote-disk", "archive"}}
	onlyDisk := OfferedClaimClasses{External: []string{"remote-disk"}}
	disk := func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = ptr.To("remote-disk") }
	bound := claim(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeName = "pvc-123" })
	for _, tc := range []struct {
		name     string
		pvc, old *corev1.PersistentVolumeClaim
		class    OfferedClaimClasses
		want     string
	}{
		{name: "the offered class", pvc: claim(nil), class: ssd},
		{name: "another class", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = ptr.To("gold") }), class: ssd,
			want: `has spec.storageClassName "gold": this provider offers class "milan-ssd" for liqo claims`},
		{name: "no class at all", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = nil }), class: ssd,
			want: "has spec.storageClassName none"},
		{name: "a provider offering no class takes no claim", pvc: claim(nil), class: OfferedClaimClasses{}, want: "offers no storage class"},
		{name: "an update keeps the class it was made with", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) { s.StorageClassName = ptr.To("old") }),
			old: claim(nil), class: ssd},
		{name: "binding a provider's volume by name", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) { s.VolumeName = "pvc-of-someone-else" }), class: ssd,
			want: `sets spec.volumeName "pvc-of-someone-else"`},
		{name: "setting it on a pending claim's update", pvc: bound, old: claim(nil), class: ssd, want: "sets spec.volumeName"},
		{name: "growing a claim the provider bound", pvc: bound, old: bound, class: ssd},
		{name: "picking volumes by label", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) { s.Selector = &metav1.LabelSelector{} }), class: ssd,
			want: "sets spec.selector"},
		{name: "a data source", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) {
			s.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "x"}
		}), class: ssd, want: "sets spec.dataSource or spec.dataSourceRef"},
		{name: "an external class the offer lists", pvc: claim(disk), class: withDisk},
		{name: "an external class with no class for liqo claims", pvc: claim(disk), class: onlyDisk},
		{name: "the liqo class when the offer lists only external ones", pvc: claim(nil), class: onlyDisk,
			want: `has spec.storageClassName "milan-ssd": this provider offers classes ["remote-disk"] to claim directly (spec.externalStorageClasses)`},
		{name: "an external class the offer does not list", pvc: claim(disk), class: ssd,
			want: "add the class to spec.externalStorageClasses of the ResourceOffer"},
		{name: "an external class with a selector", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) {
			disk(s)
			s.Selector = &metav1.LabelSelector{}
		}), class: withDisk, want: "sets spec.selector"},
		{name: "an external class naming a volume", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) {
			disk(s)
			s.VolumeName = "pvc-of-someone-else"
		}), class: withDisk, want: "sets spec.volumeName"},
		{name: "an external class with a data source", pvc: claim(func(s *corev1.PersistentVolumeClaimSpec) {
			disk(s)
			s.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "x"}
		}), class: withDisk, want: "sets spec.dataSource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TwinClaimProblem(tc.pvc, tc.old, tc.class)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("TwinClaimProblem = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRemotePollInterval(t *testing.T) {
	for _, tc := range []struct {
		age, want time.Duration
	}{{0, 3 * time.Second}, {119 * time.Second, 3 * time.Second}, {2 * time.Minute, 30 * time.Second}, {time.Hour, 30 * time.Second}} {
		if got := RemotePollInterval(tc.age); got != tc.want {
			t.Errorf("RemotePollInterval(%s) = %s, want %s", tc.age, got, tc.want)
		}
	}
}
