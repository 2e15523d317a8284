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

package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

// exampleFleet is the example fleet repository of this module.
const exampleFleet = "../../clusters"

// IDs of the example fleet, and of the providers tests add to it.
const (
	romeID   = "3f5c9e21-7b4a-4d8e-a6c3-5e0f2b9d7a14"
	milanID  = "8b1d6f03-c2e5-4a97-9f48-d13b7e6a2c05"
	naplesID = "edc8c24a-4c11-48b8-8b0e-2a95cf7464af"
)

func copyFleet(t *testing.T) string { return fleettest.Copy(t, exampleFleet) }

func edit(t *testing.T, fleetDir, file, old, new string) { fleettest.Edit(t, fleetDir, file, old, new) }

func write(t *testing.T, fleetDir, file, content string) { fleettest.Write(t, fleetDir, file, content) }

func appendResource(t *testing.T, fleetDir, cluster, file string) {
	t.Helper()
	p := filepath.Join(fleetDir, cluster, "config", "kustomization.yaml")
	raw, err := os.ReadFile(p)
	if err != nil {
		raw = []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	}
	write(t, fleetDir, filepath.Join(cluster, "config", "kustomization.yaml"), string(raw)+"- "+file+"\n")
}

// addProvider adds a provider offering to rome with a region label, and the
// ForeignCluster with which rome consumes it.
func addProvider(t *testing.T, fleetDir, name, id, region string) {
	t.Helper()
	addOffer(t, fleetDir, name, id, "rome", romeID, "  labels:\n    topology.liqo.io/region: "+region+"\n")
}

// addOffer adds the provider name (its identity, with cluster ID id), its
// offer to consumer (extraSpec is appended to the offer's spec, in YAML
// indented by two spaces), and the ForeignCluster with which consumer
// consumes it.
func addOffer(t *testing.T, fleetDir, name, id, consumer, consumerID, extraSpec string) {
	t.Helper()
	write(t, fleetDir, name+"/install/cluster-identity.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: spillway-cluster-identity
  namespace: liqo
data:
  CLUSTER_ID: `+id+`
  CLUSTER_NAME: `+name+`
  API_SERVER_URL: https://api.`+name+`.example.com:6443
`)
	write(t, fleetDir, name+"/config/resourceoffer-"+consumer+".yaml", `apiVersion: sharing.liqo.io/v1alpha1
kind: ResourceOffer
metadata:
  name: `+consumer+`
  namespace: liqo
spec:
  clusterId: `+consumerID+`
  clusterName: `+consumer+`
`+extraSpec)
	appendResource(t, fleetDir, name, "resourceoffer-"+consumer+".yaml")
	write(t, fleetDir, consumer+"/config/foreigncluster-"+name+".yaml", `apiVersion: discovery.liqo.io/v1alpha1
kind: ForeignCluster
metadata:
  name: `+name+`
spec:
  clusterIdentity:
    clusterID: `+id+`
    clusterName: `+name+`
  outgoingPeeringEnabled: "Yes"
  incomingPeeringEnabled: "No"
`)
	appendResource(t, fleetDir, consumer, "foreigncluster-"+name+".yaml")
}

// selectRegion gives liqo-demo on rome a clusterSelector on the region.
func selectRegion(t *testing.T, fleetDir, region string) {
	t.Helper()
	edit(t, fleetDir, "rome/config/namespace-liqo-demo.yaml", "  podOffloadingStrategy: LocalAndRemote\n",
		`  podOffloadingStrategy: LocalAndRemote
  clusterSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - key: topology.liqo.io/region
        operator: In
        values: [`+region+`]
`)
}

func compute(t *testing.T, base, head string, opts Options) *Plan {
	t.Helper()
	g := NewWithT(t)
	b, err := Load(base)
	g.Expect(err).NotTo(HaveOccurred())
	h, err := Load(head)
	g.Expect(err).NotTo(HaveOccurred())
	p, err := Compute(context.Background(), b, h, opts)
	g.Expect(err).NotTo(HaveOccurred())
	return p
}

// changesOf returns the changes of one cluster.
func changesOf(p *Plan, cluster string) []Change {
	for _, c := range p.Clusters {
		if c.Name == cluster {
			return c.Changes
		}
	}
	return nil
}

func text(t *testing.T, p *Plan) string {
	t.Helper()
	var b strings.Builder
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
