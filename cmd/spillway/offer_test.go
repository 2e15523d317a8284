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

package main

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

// pushSecret is the part of a PushSecret the peering relies on.
type pushSecret struct {
	APIVersion string `json:"apiVersion"`
	Spec       struct {
		SecretStoreRefs []struct{ Kind, Name string } `json:"secretStoreRefs"`
		Selector        struct {
			Secret struct {
				Name string `json:"name"`
			} `json:"secret"`
		} `json:"selector"`
		Data []struct {
			Match struct {
				SecretKey string `json:"secretKey"`
				RemoteRef struct {
					RemoteKey string `json:"remoteKey"`
					Property  string `json:"property"`
				} `json:"remoteRef"`
			} `json:"match"`
		} `json:"data"`
	} `json:"spec"`
}

func TestGenerateOfferReproducesTheExampleFleet(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	example := build(t, f, "milan")
	r := spillway("generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--label", "topology.liqo.io/region=north")
	g.Expect(r.code).To(Equal(0), r.stderr)
	written := build(t, f, "milan")

	var want, got sharingv1alpha1.ResourceOffer
	decodeStrict(t, find(t, example, "ResourceOffer", "liqo", "rome"), &want)
	decodeStrict(t, find(t, written, "ResourceOffer", "liqo", "rome"), &got)
	g.Expect(got.Spec).To(Equal(want.Spec))

	var wantPS, gotPS pushSecret
	g.Expect(json.Unmarshal(find(t, example, "PushSecret", "liqo", "identity-rome"), &wantPS)).To(Succeed())
	g.Expect(json.Unmarshal(find(t, written, "PushSecret", "liqo", "identity-rome"), &gotPS)).To(Succeed())
	g.Expect(gotPS).To(Equal(wantPS))
}

func TestGenerateOfferWritesFixedLimits(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	fleettest.Write(t, f, "venice/install/cluster-identity.yaml",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: spillway-cluster-identity, namespace: liqo}\ndata: {CLUSTER_ID: venice-id, CLUSTER_NAME: venice}\n")
	r := spillway("generate", "offer", "venice", "--cluster", "milan", "--fleet", f, "--cpu", "4", "--memory", "16Gi", "--gpu", "1")
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(fleettest.Read(t, f, "milan/config/kustomization.yaml")).To(HaveSuffix("- resourceoffer-venice.yaml\n- pushsecret-venice.yaml\n"))

	objs := build(t, f, "milan")
	var ro sharingv1alpha1.ResourceOffer
	decodeStrict(t, find(t, objs, "ResourceOffer", "liqo", "venice"), &ro)
	g.Expect(ro.Spec.ClusterID).To(Equal("venice-id"))
	g.Expect(ro.HasFixedLimits()).To(BeTrue())
	g.Expect(ro.Spec.SharingPercentage).To(BeNil())
	for name, want := range map[string]string{"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"} {
		q := ro.Spec.Resources.Limits[corev1.ResourceName(name)]
		g.Expect(q.Cmp(resource.MustParse(want))).To(BeZero(), name)
	}
	var ps pushSecret
	g.Expect(json.Unmarshal(find(t, objs, "PushSecret", "liqo", "identity-venice"), &ps)).To(Succeed())
	g.Expect(ps.Spec.Selector.Secret.Name).To(Equal(sharingv1alpha1.IdentitySecretName("venice", "venice-id")))
	g.Expect(ps.Spec.Data[0].Match.RemoteRef.RemoteKey).To(Equal("spillway-milan-identity-venice"))

	r = spillway("generate", "offer", "venice", "--cluster", "milan", "--fleet", f, "--sharing-percentage", "40")
	g.Expect(r.code).To(Equal(0), r.stderr)
	var proportional sharingv1alpha1.ResourceOffer
	decodeStrict(t, find(t, build(t, f, "milan"), "ResourceOffer", "liqo", "venice"), &proportional)
	g.Expect(proportional.Spec.Resources).To(BeNil())
	g.Expect(proportional.EffectiveSharingPercentage()).To(BeEquivalentTo(40))
	g.Expect(proportional.Spec.Broker).To(BeFalse())

	r = spillway("generate", "offer", "venice", "--cluster", "milan", "--fleet", f, "--broker", "--sharing-percentage", "100")
	g.Expect(r.code).To(Equal(0), r.stderr)
	var broker sharingv1alpha1.ResourceOffer
	decodeStrict(t, find(t, build(t, f, "milan"), "ResourceOffer", "liqo", "venice"), &broker)
	g.Expect(broker.Spec.Broker).To(BeTrue())
	g.Expect(broker.EffectiveSharingPercentage()).To(BeEquivalentTo(100))
	g.Expect(broker.Spec.ExposedLabelKeys).To(BeEmpty())

	r = spillway("generate", "offer", "venice", "--cluster", "milan", "--fleet", f, "--broker", "--expose-labels", "topology.kubernetes.io/region, topology.kubernetes.io/zone")
	g.Expect(r.code).To(Equal(0), r.stderr)
	var exposing sharingv1alpha1.ResourceOffer
	decodeStrict(t, find(t, build(t, f, "milan"), "ResourceOffer", "liqo", "venice"), &exposing)
	g.Expect(exposing.Spec.ExposedLabelKeys).To(Equal([]string{"topology.kubernetes.io/region", "topology.kubernetes.io/zone"}))
}
