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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func labelled(name string, kv ...string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

var (
	worker   = labelled("venice-worker")
	naples   = labelled("liqo-naples", "liqo.io/type", "virtual-node", "liqo.io/remote-cluster-id", "naples-id", "topology.liqo.io/region", "south")
	florence = labelled("liqo-florence", "liqo.io/type", "virtual-node", "liqo.io/remote-cluster-id", "florence-id", "topology.liqo.io/region", "center")
	south    = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"south"}}}}}}
)

// allowed lists the nodes a placement lets a pod onto (taints aside).
func allowed(g Gomega, p PodPlacement, nodes ...corev1.Node) []string {
	sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: p.NodeSelectorTerms})
	g.Expect(err).NotTo(HaveOccurred())
	var out []string
	for i := range nodes {
		if sel.Match(&nodes[i]) {
			out = append(out, nodes[i].Name)
		}
	}
	return out
}

func TestPlacementForEachStrategy(t *testing.T) {
	g := NewWithT(t)
	all := []corev1.Node{worker, naples, florence}

	local := PlacementFor(offloadingv1alpha1.LocalPodOffloadingStrategy, south)
	g.Expect(local.Tolerations).To(BeEmpty())
	g.Expect(allowed(g, local, all...)).To(ConsistOf("venice-worker"))

	remote := PlacementFor(offloadingv1alpha1.RemotePodOffloadingStrategy, south)
	g.Expect(remote.Tolerations).To(ConsistOf(VirtualNodeToleration()))
	g.Expect(allowed(g, remote, all...)).To(ConsistOf("liqo-naples"))

	both := PlacementFor(offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, south)
	g.Expect(allowed(g, both, all...)).To(ConsistOf("venice-worker", "liqo-naples"))

	everyPeer := PlacementFor(offloadingv1alpha1.RemotePodOffloadingStrategy, nil)
	g.Expect(allowed(g, everyPeer, all...)).To(ConsistOf("liqo-naples", "liqo-florence"))
}

func TestMergeRequiredTermsIsAnAnd(t *testing.T) {
	g := NewWithT(t)
	podTerms := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"center"}}}}}
	merged := MergeRequiredTerms(podTerms, PlacementFor(offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, south).NodeSelectorTerms)
	// The pod wants center, the namespace allows south or physical: nothing virtual fits.
	g.Expect(allowed(g, PodPlacement{NodeSelectorTerms: merged}, naples, florence)).To(BeEmpty())
	g.Expect(MergeRequiredTerms(nil, podTerms)).To(Equal(podTerms))
}

func TestSelectedClusters(t *testing.T) {
	g := NewWithT(t)
	ids, err := SelectedClusters(south, []corev1.Node{worker, naples, florence})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ids).To(Equal([]string{"naples-id"}))
	ids, _ = SelectedClusters(nil, []corev1.Node{worker, naples, florence})
	g.Expect(ids).To(Equal([]string{"florence-id", "naples-id"}))
	_, err = SelectedClusters(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "x", Operator: "Near"}}}}}, []corev1.Node{naples})
	g.Expect(err).To(MatchError(ContainSubstring("spec.clusterSelector")))
}

func TestRemoteNamespaceName(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ClusterSuffix("5f3b5abd-cccb-4f75-931b-d6b1ca95fa7d")).To(Equal("7ab115"), "the seed's florence-7ab115")
	g.Expect(UniqueClusterName("naples", "edc8c24a-4c11-48b8-8b0e-2a95cf7464af")).To(Equal("naples-5eada1"))
	g.Expect(RemoteNamespaceName(offloadingv1alpha1.EnforceSameNameMappingStrategy, "liqo-demo", "rome", "x")).To(Equal("liqo-demo"))
	g.Expect(RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, "liqo-demo", "rome", "3f5c")).
		To(Equal("liqo-demo-rome-" + ClusterSuffix("3f5c")))
	long := RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, "a-very-long-namespace-name-that-goes-on-and-on-and-on", "rome", "3f5c")
	g.Expect(len(long)).To(BeNumerically("<=", 63))
}
