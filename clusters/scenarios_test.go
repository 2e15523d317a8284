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

package clusters_test

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/policies"
)

// fleet is every cluster folder's config, built, with its identity.
type fleet map[string]fleetCluster

type fleetCluster struct {
	id     map[string]string
	config built
}

// builtFleet is built once for the tests of this file: building every
// folder takes seconds.
var builtFleet fleet

func loadFleet(t *testing.T) fleet {
	t.Helper()
	if builtFleet != nil {
		return builtFleet
	}
	f := fleet{}
	for _, c := range clusterDirs(t) {
		f[c] = fleetCluster{id: identity(t, c), config: build(t, filepath.Join(c, "config"))}
	}
	builtFleet = f
	return f
}

// byID is the folder whose install declares the cluster ID.
func (f fleet) byID(t *testing.T, id string) string {
	t.Helper()
	for name, c := range f {
		if c.id["CLUSTER_ID"] == id {
			return name
		}
	}
	t.Fatalf("no cluster folder has CLUSTER_ID %s", id)
	return ""
}

// objects decodes every object of one kind in a built folder.
func objects[T any](t *testing.T, b built, kind string) []T {
	t.Helper()
	var out []T
	for _, r := range b.res.Resources() {
		if r.GetKind() != kind {
			continue
		}
		j, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var o T
		mustDecodeStrict(t, j, &o)
		out = append(out, o)
	}
	return out
}

// Every ForeignCluster names a provider of the fleet that offers to this
// consumer, and its credentials travel from that provider's PushSecret to this
// folder's ExternalSecret, into the Secret the ForeignCluster reads.
func TestEveryPeeringHasAnOfferAndItsCredentials(t *testing.T) {
	f := loadFleet(t)
	for consumer, c := range f {
		for _, fc := range objects[discoveryv1alpha1.ForeignCluster](t, c.config, "ForeignCluster") {
			t.Run(consumer+"/"+fc.Name, func(t *testing.T) {
				g := NewWithT(t)
				provider := f.byID(t, fc.Spec.ClusterIdentity.ClusterID)
				g.Expect(fc.Spec.ClusterIdentity.ClusterName).To(Equal(provider))
				g.Expect(fc.Spec.OutgoingPeeringEnabled).To(Equal(discoveryv1alpha1.PeeringEnabledYes))
				g.Expect(fc.Spec.PeeringType).To(Equal(discoveryv1alpha1.PeeringTypeOutOfBand))
				g.Expect(fc.Spec.CredentialsSecretRef).NotTo(BeNil())

				p := f[provider].config
				var offer sharingv1alpha1.ResourceOffer
				mustDecodeStrict(t, p.find(t, "ResourceOffer", "liqo", consumer), &offer)
				g.Expect(offer.Spec.ClusterID).To(Equal(c.id["CLUSTER_ID"]))
				g.Expect(offer.Spec.ClusterName).To(Equal(consumer))

				var es externalSecret
				g.Expect(json.Unmarshal(c.config.find(t, "ExternalSecret", fc.CredentialsNamespace(), fc.Spec.CredentialsSecretRef.Name), &es)).To(Succeed())
				g.Expect(es.Spec.Target.Name).To(Equal(fc.Spec.CredentialsSecretRef.Name))
				g.Expect(es.Spec.DataFrom).To(HaveLen(1))
				var ps pushSecret
				g.Expect(json.Unmarshal(p.find(t, "PushSecret", "liqo", "identity-"+consumer), &ps)).To(Succeed())
				g.Expect(ps.Spec.Selector.Secret.Name).To(Equal(sharingv1alpha1.IdentitySecretName(consumer, offer.Spec.ClusterID)))
				// Each key of the identity as the property of the same name,
				// all under the key the ExternalSecret extracts: pushed whole,
				// External Secrets' Kubernetes provider could not delete it
				// and the PushSecret stayed terminating once pruned.
				var pushed []string
				for _, d := range ps.Spec.Data {
					g.Expect(d.Match.RemoteRef.RemoteKey).To(Equal(es.Spec.DataFrom[0].Extract.Key))
					g.Expect(d.Match.RemoteRef.Property).To(Equal(d.Match.SecretKey))
					pushed = append(pushed, d.Match.SecretKey)
				}
				g.Expect(pushed).To(Equal(sharingv1alpha1.IdentityKeys()))
				g.Expect(es.Spec.DataFrom[0].Extract.Key).To(Equal(manifests.IdentityKey(provider, consumer)))
				g.Expect(ps.Spec.SecretStoreRefs).To(ContainElement(es.Spec.SecretStoreRef))
			})
		}
	}
}

// Every ResourceOffer is for a consumer of the fleet that peers back.
func TestEveryOfferIsConsumed(t *testing.T) {
	f := loadFleet(t)
	for provider, c := range f {
		for _, offer := range objects[sharingv1alpha1.ResourceOffer](t, c.config, "ResourceOffer") {
			t.Run(provider+"/"+offer.Name, func(t *testing.T) {
				g := NewWithT(t)
				consumer := f.byID(t, offer.Spec.ClusterID)
				g.Expect(offer.Name).To(Equal(consumer))
				var fc discoveryv1alpha1.ForeignCluster
				mustDecodeStrict(t, f[consumer].config.find(t, "ForeignCluster", "", provider), &fc)
				g.Expect(fc.Spec.ClusterIdentity.ClusterID).To(Equal(c.id["CLUSTER_ID"]))
			})
		}
	}
}

// handWrittenPlacement lists the workloads that still place themselves on
// virtual nodes; every other workload leaves that to the pod webhook.
// rome's nginx predates the webhook; its affinity is the webhook author's to
// remove.
var handWrittenPlacement = map[string]bool{"rome/liqo-demo/nginx": true}

// Every offloaded namespace is declared in its folder, labelled so the pod
// webhook acts on it from the first apply, and its workloads leave placement
// on virtual nodes to the webhook.
func TestOffloadedNamespacesAndTheirWorkloads(t *testing.T) {
	f := loadFleet(t)
	for cluster, c := range f {
		for _, no := range objects[offloadingv1alpha1.NamespaceOffloading](t, c.config, "NamespaceOffloading") {
			g := NewWithT(t)
			g.Expect(no.Name).To(Equal(offloadingv1alpha1.RequiredName), "%s: NamespaceOffloading in %s", cluster, no.Namespace)
			var ns corev1.Namespace
			mustDecodeStrict(t, c.config.find(t, "Namespace", "", no.Namespace), &ns)
			g.Expect(ns.Labels).To(HaveKeyWithValue(offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.SchedulingEnabledValue), "%s: namespace %s", cluster, ns.Name)
		}
		for _, d := range objects[appsv1.Deployment](t, c.config, "Deployment") {
			key := cluster + "/" + d.Namespace + "/" + d.Name
			t.Run(key, func(t *testing.T) {
				g := NewWithT(t)
				spec := d.Spec.Template.Spec
				g.Expect(spec.Tolerations).To(BeEmpty(), "the webhook adds the virtual-node toleration")
				if !handWrittenPlacement[key] {
					g.Expect(spec.Affinity).To(BeNil(), "the webhook adds the affinity the namespace's offloading asks for")
					g.Expect(spec.NodeSelector).To(BeEmpty())
				}
			})
		}
	}
}

// scenario is one example of the seed, as the fleet declares it.
type scenario struct {
	consumer, namespace string
	mapping             offloadingv1alpha1.NamespaceMappingStrategy
	pods                offloadingv1alpha1.PodOffloadingStrategy
	// peers are the consumer's ForeignClusters, selected the providers the
	// clusterSelector picks among them.
	peers, selected []string
}

var scenarios = []scenario{
	{consumer: "rome", namespace: "liqo-demo", mapping: offloadingv1alpha1.DefaultNameMappingStrategy,
		pods: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, peers: []string{"milan"}, selected: []string{"milan"}},
	// Offloading with policies: naples (south), not florence (center).
	{consumer: "venice", namespace: "liqo-demo", mapping: offloadingv1alpha1.EnforceSameNameMappingStrategy,
		pods: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, peers: []string{"florence", "naples"}, selected: []string{"naples"}},
	// Offloading a service: the namespace, and its Service, reach newyork;
	// the pods stay in london.
	{consumer: "london", namespace: "liqo-demo", mapping: offloadingv1alpha1.EnforceSameNameMappingStrategy,
		pods: offloadingv1alpha1.LocalPodOffloadingStrategy, peers: []string{"newyork"}, selected: []string{"newyork"}},
	// Replicated deployments: both edges, pods only there.
	{consumer: "europe-cloud", namespace: "liqo-demo", mapping: offloadingv1alpha1.EnforceSameNameMappingStrategy,
		pods: offloadingv1alpha1.RemotePodOffloadingStrategy, peers: []string{"europe-milan-edge", "europe-rome-edge"},
		selected: []string{"europe-milan-edge", "europe-rome-edge"}},
}

// The clusterSelector of each scenario, evaluated by the controller's own
// function against the virtual nodes the providers' offers declare, picks the
// providers the seed's tutorial expects.
func TestSeedScenariosSelectTheirProviders(t *testing.T) {
	f := loadFleet(t)
	for _, s := range scenarios {
		t.Run(s.consumer, func(t *testing.T) {
			g := NewWithT(t)
			c := f[s.consumer]
			var no offloadingv1alpha1.NamespaceOffloading
			mustDecodeStrict(t, c.config.find(t, "NamespaceOffloading", s.namespace, offloadingv1alpha1.RequiredName), &no)
			g.Expect(no.Spec.NamespaceMappingStrategy).To(Equal(s.mapping))
			g.Expect(no.Spec.PodOffloadingStrategy).To(Equal(s.pods))

			nodes := virtualNodesOf(t, f, s.consumer)
			g.Expect(names(nodes)).To(Equal(prefixed(s.peers)))
			ids, err := policies.SelectedClusters(no.Spec.ClusterSelector, nodes)
			g.Expect(err).NotTo(HaveOccurred())
			var selected []string
			for _, id := range ids {
				selected = append(selected, f.byID(t, id))
			}
			sort.Strings(selected)
			g.Expect(selected).To(Equal(s.selected))
		})
	}
}

// The providers declare their cluster labels in their offers, as the seed's
// setup scripts label the clusters.
func TestSeedProviderLabels(t *testing.T) {
	f := loadFleet(t)
	for provider, want := range map[string]map[string]string{
		"florence":          {sharingv1alpha1.TopologyRegionLabel: "center"},
		"naples":            {sharingv1alpha1.TopologyRegionLabel: "south"},
		"europe-rome-edge":  {"topology.liqo.io/type": "destination"},
		"europe-milan-edge": {"topology.liqo.io/type": "destination"},
	} {
		for _, offer := range objects[sharingv1alpha1.ResourceOffer](t, f[provider].config, "ResourceOffer") {
			NewWithT(t).Expect(offer.Spec.Labels).To(Equal(want), "%s: ResourceOffer %s", provider, offer.Name)
		}
	}
}

// Replicated deployments: one replica per selected edge, never two on one.
func TestReplicatedDeploymentSpreadsOnePerEdge(t *testing.T) {
	g := NewWithT(t)
	var d appsv1.Deployment
	mustDecodeStrict(t, loadFleet(t)["europe-cloud"].config.find(t, "Deployment", "liqo-demo", "liqo-demo-app"), &d)
	g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)), "one per edge")
	g.Expect(d.Spec.Template.Spec.TopologySpreadConstraints).To(ConsistOf(corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: d.Spec.Selector.MatchLabels},
	}))
	g.Expect(virtualkubeletv1alpha1.VirtualNodeLabels("liqo-x", "", nil)).To(HaveKeyWithValue("kubernetes.io/hostname", "liqo-x"),
		"the spread key tells virtual nodes apart")
}

// Offloading a service: the Service exists in the offloaded namespace.
func TestOffloadedServiceIsInTheNamespace(t *testing.T) {
	g := NewWithT(t)
	var svc corev1.Service
	mustDecodeStrict(t, loadFleet(t)["london"].config.find(t, "Service", "liqo-demo", "flights-service"), &svc)
	g.Expect(svc.Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(7999))))
	var d appsv1.Deployment
	mustDecodeStrict(t, loadFleet(t)["london"].config.find(t, "Deployment", "liqo-demo", "flights"), &d)
	g.Expect(d.Spec.Template.Labels).To(Equal(svc.Spec.Selector))
}

// virtualNodesOf is what the consumer's virtual nodes will look like: one per
// ForeignCluster, labelled with what the provider's offer declares, built by
// the function the virtual kubelet uses.
func virtualNodesOf(t *testing.T, f fleet, consumer string) []corev1.Node {
	t.Helper()
	var nodes []corev1.Node
	for _, fc := range objects[discoveryv1alpha1.ForeignCluster](t, f[consumer].config, "ForeignCluster") {
		provider := f.byID(t, fc.Spec.ClusterIdentity.ClusterID)
		var offer sharingv1alpha1.ResourceOffer
		mustDecodeStrict(t, f[provider].config.find(t, "ResourceOffer", "liqo", consumer), &offer)
		name := virtualkubeletv1alpha1.VirtualNodeName(fc.Spec.ClusterIdentity.ClusterName)
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: virtualkubeletv1alpha1.VirtualNodeLabels(name, fc.Spec.ClusterIdentity.ClusterID, offer.Spec.Labels)}})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
}

func names(nodes []corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

func prefixed(clusters []string) []string {
	var out []string
	for _, c := range clusters {
		out = append(out, "liqo-"+strings.TrimSpace(c))
	}
	return out
}
