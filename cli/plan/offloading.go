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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/policies"
)

// offloadings compares the namespaces a cluster offloads.
func (d *diff) offloadings() {
	basePeers, headPeers := d.base.peersOf(d.b), d.head.peersOf(d.h)
	namespaces := map[string]bool{}
	for ns := range d.b.Offloadings {
		namespaces[ns] = true
	}
	for ns := range d.h.Offloadings {
		namespaces[ns] = true
	}
	for _, ns := range sortedKeys(namespaces) {
		d.misnamed(ns)
		b, h := d.b.Offloading(ns), d.h.Offloading(ns)
		switch {
		case b == nil && h == nil:
		case b == nil:
			if d.valid(h) {
				d.offloaded(ns, h, headPeers)
			}
		case h == nil:
			d.unoffloaded(ns, b, basePeers)
		default:
			d.changed(ns, b, h, basePeers, headPeers)
		}
	}
}

// misnamed rejects NamespaceOffloadings not named "offloading".
func (d *diff) misnamed(ns string) {
	for _, name := range sortedKeys(d.h.Offloadings[ns]) {
		if name == offloadingv1alpha1.RequiredName {
			continue
		}
		if old := d.b.Offloadings[ns][name]; old != nil && equality.Semantic.DeepEqual(old.Spec, d.h.Offloadings[ns][name].Spec) {
			continue // already there before this change
		}
		d.add(Change{Kind: InvalidOffloading, Namespace: ns, Rejected: true, Message: fmt.Sprintf(
			"NamespaceOffloading %q: metadata.name must be %q, there is one per namespace: rename it",
			name, offloadingv1alpha1.RequiredName)})
	}
}

// valid rejects the field values the CRD schema refuses and reports whether
// the object passes.
func (d *diff) valid(no *offloadingv1alpha1.NamespaceOffloading) bool {
	ok := true
	switch no.Spec.NamespaceMappingStrategy {
	case "", offloadingv1alpha1.DefaultNameMappingStrategy, offloadingv1alpha1.EnforceSameNameMappingStrategy:
	default:
		ok = false
		d.add(Change{Kind: InvalidOffloading, Namespace: no.Namespace, Rejected: true, Message: fmt.Sprintf(
			"spec.namespaceMappingStrategy %q is not DefaultName or EnforceSameName: use one of them", no.Spec.NamespaceMappingStrategy)})
	}
	switch no.Spec.PodOffloadingStrategy {
	case "", offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, offloadingv1alpha1.LocalPodOffloadingStrategy, offloadingv1alpha1.RemotePodOffloadingStrategy:
	default:
		ok = false
		d.add(Change{Kind: InvalidOffloading, Namespace: no.Namespace, Rejected: true, Message: fmt.Sprintf(
			"spec.podOffloadingStrategy %q is not LocalAndRemote, Local or Remote: use one of them", no.Spec.PodOffloadingStrategy)})
	}
	// What admission says about the object itself (the selector), from the
	// same policy the webhook applies.
	for _, reason := range policies.AdmitOffloading(nil, no).Denied {
		ok = false
		d.add(Change{Kind: InvalidOffloading, Namespace: no.Namespace, Rejected: true, Message: reason})
	}
	return ok
}

// podsRun says where pods of a namespace may run under a strategy.
func podsRun(s offloadingv1alpha1.PodOffloadingStrategy) string {
	switch s {
	case offloadingv1alpha1.LocalPodOffloadingStrategy:
		return "pods stay on local nodes (Local)"
	case offloadingv1alpha1.RemotePodOffloadingStrategy:
		return "pods run on the selected virtual nodes only (Remote)"
	}
	return "pods may run on local nodes or the selected virtual nodes (LocalAndRemote)"
}

// remoteName is the namespace's name in the peers, from
// policies.RemoteNamespaceName and the cluster's declared identity.
func remoteName(no *offloadingv1alpha1.NamespaceOffloading, c *Cluster) string {
	strategy := policies.MappingStrategyOf(no)
	if strategy != offloadingv1alpha1.EnforceSameNameMappingStrategy && c.IdentityErr != nil {
		return fmt.Sprintf("<unknown: %s/install declares no %s>", c.Name, "CLUSTER_ID")
	}
	return policies.RemoteNamespaceName(strategy, no.Namespace, c.Identity.ClusterName, c.Identity.ClusterID)
}

// noPeerReason explains an empty selection.
func noPeerReason(c *Cluster, peers []peer) string {
	var names, offering []string
	for _, p := range peers {
		names = append(names, p.Name)
		if p.Node != nil {
			offering = append(offering, p.Name)
		}
	}
	switch {
	case len(peers) == 0:
		return fmt.Sprintf("%s declares no ForeignCluster", c.displayName())
	case len(offering) == 0:
		return fmt.Sprintf("none of %s's peers (%s) offers it resources, so it has no virtual node", c.displayName(), strings.Join(names, ", "))
	}
	return fmt.Sprintf("spec.clusterSelector matches none of %s's virtual nodes (%s)", c.displayName(), strings.Join(offering, ", "))
}

func (d *diff) offloaded(ns string, h *offloadingv1alpha1.NamespaceOffloading, peers []peer) {
	sel := selectPeers(h.Spec.ClusterSelector, peers)
	msg := fmt.Sprintf("offloaded to %s as %s; %s", sel, remoteName(h, d.h), podsRun(policies.PodStrategyOf(h)))
	if len(sel.names) == 0 {
		msg = fmt.Sprintf("offloaded, but to no peer: %s; %s", noPeerReason(d.h, peers), podsRun(policies.PodStrategyOf(h)))
	}
	for _, route := range d.head.brokerRoutes(d.h, sel.names, peers) {
		msg += "; " + route
	}
	if h.Spec.Suspend {
		msg += "; suspended: nothing is created until spec.suspend is false"
	}
	d.add(Change{Kind: Offload, Namespace: ns, Message: msg})
}

func (d *diff) unoffloaded(ns string, b *offloadingv1alpha1.NamespaceOffloading, peers []peer) {
	sel := selectPeers(b.Spec.ClusterSelector, peers)
	msg := "unoffloaded; it was on no peer"
	if len(sel.names) > 0 {
		msg = fmt.Sprintf("unoffloaded from %s: %s is deleted there, with every pod it runs", sel, remoteName(b, d.b))
	}
	d.add(Change{Kind: Unoffload, Namespace: ns, Message: msg})
	d.strandedClaims(ns, sel.names, peers)
}

func sameSelector(b, h *offloadingv1alpha1.NamespaceOffloading) bool {
	if b.SelectsEveryCluster() || h.SelectsEveryCluster() {
		return b.SelectsEveryCluster() == h.SelectsEveryCluster()
	}
	return equality.Semantic.DeepEqual(b.Spec.ClusterSelector, h.Spec.ClusterSelector)
}

func (d *diff) changed(ns string, b, h *offloadingv1alpha1.NamespaceOffloading, basePeers, headPeers []peer) {
	specChanged := !equality.Semantic.DeepEqual(b.Spec, h.Spec)
	if specChanged && !d.valid(h) {
		return
	}
	if verdict := policies.AdmitOffloading(b, h); !verdict.Allowed() {
		// The webhook's own verdict (the mapping strategy), with the fix as
		// a fleet repo makes it.
		d.add(Change{Kind: MappingStrategyChange, Namespace: ns, Rejected: true, Message: fmt.Sprintf(
			"%s; in the fleet: unoffload %s in one pull request (spillway unoffload namespace %s), then offload it with the new strategy in the next",
			strings.Join(verdict.Denied, "; "), ns, ns)})
		return
	}
	if b.Spec.Suspend != h.Spec.Suspend {
		msg := "suspended: remote namespaces are left as they are until spec.suspend is false"
		if !h.Spec.Suspend {
			msg = "resumed: remote namespaces are reconciled again"
		}
		d.add(Change{Kind: SuspendChange, Namespace: ns, Message: msg})
	}

	bs, hs := selectPeers(b.Spec.ClusterSelector, basePeers), selectPeers(h.Spec.ClusterSelector, headPeers)
	selectorChanged := !sameSelector(b, h)
	cause := "spec.clusterSelector changed"
	if !selectorChanged {
		cause = "the peers or the labels they offer changed"
	}
	name := remoteName(h, d.h)
	joined, left := minus(hs.names, bs.names), minus(bs.names, hs.names)
	switch {
	case len(joined) > 0 || len(left) > 0:
		var effects []string
		if len(joined) > 0 {
			effects = append(effects, fmt.Sprintf("%s is created on %s", name, strings.Join(joined, ", ")))
		}
		if len(left) > 0 {
			effects = append(effects, fmt.Sprintf("deleted, with its pods, from %s", strings.Join(left, ", ")))
		}
		msg := fmt.Sprintf("moves from %s to %s (%s): %s", bs, hs, cause, strings.Join(effects, "; "))
		if len(hs.names) == 0 {
			msg += "; " + noPeerReason(d.h, headPeers)
		}
		d.add(Change{Kind: Move, Namespace: ns, Message: msg})
		d.strandedClaims(ns, left, basePeers)
	case selectorChanged:
		d.add(Change{Kind: SelectorChange, Namespace: ns, Message: fmt.Sprintf(
			"spec.clusterSelector changed but still selects %s: nothing moves", hs)})
	}

	strategyChanged := policies.PodStrategyOf(b) != policies.PodStrategyOf(h)
	placementChanged := strategyChanged || (selectorChanged && policies.PodStrategyOf(h) != offloadingv1alpha1.LocalPodOffloadingStrategy)
	if !placementChanged {
		return
	}
	violations, note := d.checkPods(ns, h)
	if strategyChanged {
		msg := fmt.Sprintf("pod strategy %s → %s: new %s; running pods are not moved", policies.PodStrategyOf(b), policies.PodStrategyOf(h), podsRun(policies.PodStrategyOf(h)))
		if note != "" {
			msg += "; " + note
		}
		d.add(Change{Kind: PodStrategyChange, Namespace: ns, Message: msg})
	}
	d.changes = append(d.changes, violations...)
}

// checkPods lists the running pods the new placement does not allow, when a
// live view of this cluster is at hand; note says why they were not checked.
func (d *diff) checkPods(ns string, h *offloadingv1alpha1.NamespaceOffloading) ([]Change, string) {
	live := d.opts.Live
	switch {
	case live == nil:
		return nil, fmt.Sprintf("pass --kubeconfig (and --context) for %s to list running pods the new placement does not allow", d.h.Name)
	case live.Cluster != d.h.Name:
		return nil, fmt.Sprintf("running pods not checked: --kubeconfig points at %s, not %s", live.Cluster, d.h.Name)
	}
	out, err := live.violations(d.ctx, ns, policies.PodStrategyOf(h), h.Spec.ClusterSelector)
	if err != nil {
		return nil, "running pods not checked: " + err.Error()
	}
	if len(out) == 0 {
		return nil, "no running pod breaks the new placement"
	}
	return out, fmt.Sprintf("%d running %s the new placement", len(out), plural(len(out), "pod breaks", "pods break"))
}

// namespaces warns when a Namespace leaves git and Flux will prune it with
// everything it holds.
func (d *diff) namespaces() {
	for _, name := range sortedKeys(d.b.Namespaces) {
		if _, kept := d.h.Namespaces[name]; kept {
			continue
		}
		if d.b.Namespaces[name].Annotations[manifests.FluxPruneAnnotation] == manifests.FluxPruneDisabled {
			continue
		}
		d.add(Change{Kind: NamespaceDeleted, Namespace: name, Message: fmt.Sprintf(
			"Namespace %s leaves git: Flux prunes it, deleting everything running in it; to keep it, keep the Namespace in git "+
				"(without the NamespaceOffloading) or annotate it %s: %s in an earlier change", name, manifests.FluxPruneAnnotation, manifests.FluxPruneDisabled)})
	}
}
