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

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

// externalSecret is the part of an ExternalSecret the peering relies on.
type externalSecret struct {
	APIVersion string `json:"apiVersion"`
	Spec       struct {
		SecretStoreRef struct{ Kind, Name string } `json:"secretStoreRef"`
		Target         struct {
			Name string `json:"name"`
		} `json:"target"`
		DataFrom []struct {
			Extract struct {
				Key string `json:"key"`
			} `json:"extract"`
		} `json:"dataFrom"`
	} `json:"spec"`
}

func TestPeerWritesTheForeignClusterAndItsCredentials(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	r := spillway("peer", "naples", "--cluster", "rome", "--fleet", f,
		"--cluster-id", "edc8c24a-4c11-48b8-8b0e-2a95cf7464af", "--credentials-secret", "naples-identity")
	g.Expect(r.code).To(Equal(0), r.stderr)
	kustomization := fleettest.Read(t, f, "rome/config/kustomization.yaml")
	g.Expect(kustomization).To(HaveSuffix("- foreigncluster-naples.yaml\n- externalsecret-naples.yaml\n"))

	objs := build(t, f, "rome")
	var fc discoveryv1alpha1.ForeignCluster
	decodeStrict(t, find(t, objs, "ForeignCluster", "", "naples"), &fc)
	g.Expect(fc.Spec.ClusterIdentity).To(Equal(discoveryv1alpha1.ClusterIdentity{ClusterID: "edc8c24a-4c11-48b8-8b0e-2a95cf7464af", ClusterName: "naples"}))
	g.Expect(fc.Spec.OutgoingPeeringEnabled).To(Equal(discoveryv1alpha1.PeeringEnabledYes))
	g.Expect(fc.Spec.IncomingPeeringEnabled).To(Equal(discoveryv1alpha1.PeeringEnabledNo))
	g.Expect(fc.Spec.CredentialsSecretRef).To(Equal(&discoveryv1alpha1.SecretReference{Name: "naples-identity", Namespace: "liqo"}))

	var es externalSecret
	g.Expect(json.Unmarshal(find(t, objs, "ExternalSecret", "liqo", "naples-identity"), &es)).To(Succeed())
	g.Expect(es.APIVersion).To(Equal("external-secrets.io/v1"))
	g.Expect(es.Spec.Target.Name).To(Equal("naples-identity"))
	g.Expect(es.Spec.SecretStoreRef.Kind).To(Equal("ClusterSecretStore"))
	g.Expect(es.Spec.SecretStoreRef.Name).To(Equal("fleet-secrets"))
	g.Expect(es.Spec.DataFrom).To(HaveLen(1))
	g.Expect(es.Spec.DataFrom[0].Extract.Key).To(Equal("spillway-naples-identity-rome"))

	// Again: nothing new is listed.
	g.Expect(spillway("peer", "naples", "--cluster", "rome", "--fleet", f,
		"--cluster-id", "edc8c24a-4c11-48b8-8b0e-2a95cf7464af", "--credentials-secret", "naples-identity").code).To(Equal(0))
	g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(kustomization))
}

// With the provider in the fleet, peer reads its identity and writes what the
// example fleet holds.
func TestPeerReproducesTheExampleFleet(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	example := build(t, f, "rome")
	r := spillway("peer", "milan", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(0), r.stderr)
	written := build(t, f, "rome")

	var want, got discoveryv1alpha1.ForeignCluster
	decodeStrict(t, find(t, example, "ForeignCluster", "", "milan"), &want)
	decodeStrict(t, find(t, written, "ForeignCluster", "", "milan"), &got)
	g.Expect(got.Spec).To(Equal(want.Spec))

	var wantES, gotES externalSecret
	g.Expect(json.Unmarshal(find(t, example, "ExternalSecret", "liqo", "milan-credentials"), &wantES)).To(Succeed())
	g.Expect(json.Unmarshal(find(t, written, "ExternalSecret", "liqo", "milan-credentials"), &gotES)).To(Succeed())
	g.Expect(gotES).To(Equal(wantES))
}
