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

package resourceoffer

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/policies"
)

// ResourcesRoundedToZeroCondition is True when the percentage leaves a
// resource the provider has (a GPU) out of the offer. It is a warning, not a
// failure: the offer is valid and published, and what is free moves with the
// provider's load, so failing Ready over it would fail Flux health checks
// (and the Kustomizations that depend on them) for a matter of tuning.
const ResourcesRoundedToZeroCondition = "ResourcesRoundedToZero"

// TransitNotRoutedCondition is True on a broker's offer: the consumer's pods
// placed by it run at the broker's providers, two hops from the consumer,
// and the fabric routes only the two ends of each tunnel. A warning, like
// ResourcesRoundedToZero: the offer is valid and the pods run; what has no
// route is pod-IP traffic between them and the consumer's own pods, which
// would otherwise fail without a word.
const TransitNotRoutedCondition = "TransitNotRouted"

// ExposedLabelConflictCondition is True on a broker's offer when the
// providers' virtual nodes carry different values for a key of
// spec.exposedLabelKeys, which is then left out of the offer. A warning,
// like ResourcesRoundedToZero: the offer is valid and published, and the
// providers' labels are theirs to change, so failing Ready would fail Flux
// health checks over what this cluster's git cannot fix alone.
const ExposedLabelConflictCondition = "ExposedLabelConflict"

// Reasons beyond the API's shared ones; each names one thing a person can act on.
const (
	// ExposedLabelValuesDifferReason: see ExposedLabelConflictCondition.
	ExposedLabelValuesDifferReason = "ExposedLabelValuesDiffer"
	// BrokerTransitNotBuiltReason: see TransitNotRoutedCondition.
	BrokerTransitNotBuiltReason = "BrokerTransitNotBuilt"
	// ResourceRoundedToZeroReason: see ResourcesRoundedToZeroCondition.
	ResourceRoundedToZeroReason = "ResourceRoundedToZero"
	// TenantNamespaceConflictReason: the tenant name is taken by another consumer; fix spec.clusterName in git.
	TenantNamespaceConflictReason = "TenantNamespaceConflict"
	// ConsumerTokenPendingReason: the token controller has not filled the consumer's token yet.
	ConsumerTokenPendingReason = "ConsumerTokenPending"
	// ConsumerStillHasPodsReason: a deletion waits for the consumer's workloads to leave.
	ConsumerStillHasPodsReason = "ConsumerStillHasPods"
	// WithdrawalGraceExpiredReason: the consumer did not drain within
	// spec.withdrawalGracePeriod; this cluster deletes its workloads.
	WithdrawalGraceExpiredReason = "WithdrawalGraceExpired"
)

// observation is everything one reconcile learnt; status is a pure function of it.
type observation struct {
	offerRef        string
	clusterID       string
	tenantNamespace string
	identitySecret  string
	percent         int32
	conflict        *tenantConflict
	tokenPending    bool
	offered         corev1.ResourceList
	zeroed          []policies.RoundedToZero
	// broker is spec.broker; resold names the virtual nodes its offer counts.
	broker bool
	resold []string
	// labelConflicts are spec.exposedLabelKeys left out because the resold nodes disagree.
	labelConflicts []policies.LabelConflict
	// network is this side's tunnel to the consumer; nil without a fabric.
	network *fabric.State
}

// conditionState is one computed condition.
type conditionState struct {
	status          bool
	stalled         bool
	reason, message string
}

// readyState is a ladder of early returns, one per thing that can be wrong.
func readyState(o observation) conditionState {
	switch {
	case o.conflict != nil && o.conflict.terminating:
		return conditionState{reason: TenantNamespaceConflictReason, message: fmt.Sprintf(
			"%s, held by cluster %s, is being deleted: waiting to create it for cluster %s", o.conflict.object, o.conflict.holderID, o.clusterID)}
	case o.conflict != nil:
		return conditionState{stalled: true, reason: TenantNamespaceConflictReason, message: conflictMessage(o)}
	case o.tokenPending:
		return conditionState{reason: ConsumerTokenPendingReason, message: fmt.Sprintf(
			"waiting for the token controller to fill Secret %s/%s with a token and ca.crt for ServiceAccount %s",
			o.tenantNamespace, sharingv1alpha1.ConsumerTokenSecretName, sharingv1alpha1.ConsumerServiceAccountName)}
	}
	offered := "offering " + formatResources(o.offered)
	switch {
	case o.broker && len(o.resold) == 0:
		offered = "offering nothing as a broker (spec.broker): no Ready, schedulable virtual node of a provider to resell; peer with a provider"
	case o.broker:
		offered = fmt.Sprintf("offering %s as a broker, resold from %s,", formatResources(o.offered), strings.Join(o.resold, ", "))
	case len(o.offered) == 0:
		offered = "offering nothing (no Ready, schedulable node has free allocatable resources)"
	}
	return conditionState{status: true, reason: sharingv1alpha1.OfferPublishedReason,
		message: fmt.Sprintf("%s to cluster %s through namespace %s", offered, o.clusterID, o.tenantNamespace)}
}

func conflictMessage(o observation) string {
	c := o.conflict
	switch {
	case c.holderID == "":
		return fmt.Sprintf("%s exists and was not created for a consumer (no label %s): give ResourceOffer %s another spec.clusterName, or delete that object",
			c.object, sharingv1alpha1.RemoteClusterIDLabel, o.offerRef)
	case c.holderOffer != "":
		return fmt.Sprintf("%s belongs to cluster %s of ResourceOffer %s, and ResourceOffer %s is for cluster %s: their spec.clusterName map to the same name; give one of them another spec.clusterName",
			c.object, c.holderID, c.holderOffer, o.offerRef, o.clusterID)
	}
	return fmt.Sprintf("%s belongs to cluster %s, which no ResourceOffer names any more, and ResourceOffer %s is for cluster %s: delete the stale object, or give this offer another spec.clusterName",
		c.object, c.holderID, o.offerRef, o.clusterID)
}

// roundedToZeroState is True, with policies' explanation, when the
// percentage drops a resource the provider has.
func roundedToZeroState(o observation) conditionState {
	if o.conflict != nil || len(o.zeroed) == 0 {
		return conditionState{}
	}
	return conditionState{status: true, reason: ResourceRoundedToZeroReason, message: policies.RoundedToZeroMessage(o.zeroed, o.percent)}
}

// transitState is True on a broker's offer, naming where the consumer's
// pods run and what to do if they must talk to the consumer's by IP.
func transitState(o observation) conditionState {
	if !o.broker || o.conflict != nil {
		return conditionState{}
	}
	at := "the providers this cluster peers with"
	if len(o.resold) > 0 {
		at = strings.Join(o.resold, ", ")
	}
	return conditionState{status: true, reason: BrokerTransitNotBuiltReason, message: fmt.Sprintf(
		"the pods cluster %s offloads here run at %s, two hops from it; the network fabric routes only the pod CIDRs of each tunnel's two ends, so those pods and cluster %s's own pods cannot reach each other by pod IP: where they must, peer cluster %s with those providers directly",
		o.clusterID, at, o.clusterID, o.clusterID)}
}

// exposedLabelConflictState is True, naming each key, its values and the
// nodes carrying them, when a broker's offer leaves an exposed key out.
func exposedLabelConflictState(o observation) conditionState {
	if !o.broker || o.conflict != nil || len(o.labelConflicts) == 0 {
		return conditionState{}
	}
	return conditionState{status: true, reason: ExposedLabelValuesDifferReason, message: policies.ExposedLabelConflictMessage(o.labelConflicts)}
}

// applyStatus writes the computed state. Status fields name only what this
// offer actually holds: nothing while another consumer holds its tenant name.
func applyStatus(offer *sharingv1alpha1.ResourceOffer, o observation) {
	offer.Status.TenantNamespace, offer.Status.IdentitySecretName, offer.Status.Offered = "", "", nil
	if o.conflict == nil {
		offer.Status.TenantNamespace, offer.Status.IdentitySecretName, offer.Status.Offered = o.tenantNamespace, o.identitySecret, o.offered
	}
	offer.Status.OfferedDisplay = sharingv1alpha1.DisplayResources(offer.Status.Offered)
	if rz := roundedToZeroState(o); rz.status {
		conditions.MarkTrue(offer, ResourcesRoundedToZeroCondition, rz.reason, "%s", rz.message)
	} else {
		conditions.Delete(offer, ResourcesRoundedToZeroCondition)
	}
	if tr := transitState(o); tr.status {
		conditions.MarkTrue(offer, TransitNotRoutedCondition, tr.reason, "%s", tr.message)
	} else {
		conditions.Delete(offer, TransitNotRoutedCondition)
	}
	if lc := exposedLabelConflictState(o); lc.status {
		conditions.MarkTrue(offer, ExposedLabelConflictCondition, lc.reason, "%s", lc.message)
	} else {
		conditions.Delete(offer, ExposedLabelConflictCondition)
	}
	if st := readyState(o); st.status {
		conditions.MarkTrue(offer, meta.ReadyCondition, st.reason, "%s", st.message)
	} else {
		fluxstatus.MarkNotReady(offer, st.stalled, st.reason, "%s", st.message)
	}
}

// workloadCount is what a consumer still runs in one namespace here.
type workloadCount struct{ pods, shadowPods int }

// deletionState is True (blocked) while the consumer still has pods or
// ShadowPods here: a broken or departing peer never deletes remote
// workloads, the consumer drains them when it unpeers.
func deletionState(clusterID string, where map[string]workloadCount) conditionState {
	if len(where) == 0 {
		return conditionState{}
	}
	return conditionState{status: true, reason: ConsumerStillHasPodsReason, message: fmt.Sprintf(
		"deleting: cluster %s still has %s; the tenant namespace and identity stay until the consumer drains them by unpeering, or someone deletes them (label %s=%s)",
		clusterID, describeWorkloads(where), sharingv1alpha1.OriginClusterIDLabel, clusterID)}
}

// withdrawalState is deletionState within the withdrawal grace period, which
// it says when ends; expired is true once it has, and the state then says
// that this cluster deletes the consumer's workloads itself.
func withdrawalState(clusterID string, where map[string]workloadCount, deleted time.Time, grace time.Duration, now time.Time) (st conditionState, expired bool) {
	st = deletionState(clusterID, where)
	if !st.status {
		return st, false
	}
	deadline := deleted.Add(grace)
	if now.Before(deadline) {
		st.message += fmt.Sprintf("; at %s (spec.withdrawalGracePeriod %s after the deletion) this cluster deletes them itself",
			deadline.UTC().Format(time.RFC3339), grace)
		return st, false
	}
	return conditionState{status: true, reason: WithdrawalGraceExpiredReason, message: fmt.Sprintf(
		"deleting: cluster %s did not take its workloads back within spec.withdrawalGracePeriod (%s, ended %s): this cluster deletes its %s",
		clusterID, grace, deadline.UTC().Format(time.RFC3339), describeWorkloads(where))}, true
}

// describeWorkloads says "2 pod(s) and 2 ShadowPod(s) here (ns: 2 pod(s), 2 ShadowPod(s))".
func describeWorkloads(where map[string]workloadCount) string {
	namespaces := make([]string, 0, len(where))
	for ns := range where {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	var pods, shadowPods int
	parts := make([]string, 0, len(namespaces))
	for _, ns := range namespaces {
		c := where[ns]
		pods, shadowPods = pods+c.pods, shadowPods+c.shadowPods
		parts = append(parts, fmt.Sprintf("%s: %d pod(s), %d ShadowPod(s)", ns, c.pods, c.shadowPods))
	}
	return fmt.Sprintf("%d pod(s) and %d ShadowPod(s) here (%s)", pods, shadowPods, strings.Join(parts, "; "))
}

func formatResources(rl corev1.ResourceList) string {
	parts := make([]string, 0, len(rl))
	for name, q := range rl {
		parts = append(parts, fmt.Sprintf("%s=%s", name, q.String()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
