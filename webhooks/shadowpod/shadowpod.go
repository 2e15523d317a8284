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

// Package shadowpod is the provider's validating webhook of ShadowPods, on
// CREATE and UPDATE. A consumer's token may create ShadowPods, and each
// becomes a real pod here, so nothing the consumer sends is trusted:
//   - the pod must pass the provider's pod policy (policies.CheckPod) at the
//     level its ResourceOffer names: no privileged or host-sharing pods, no
//     nodeName, no ServiceAccount but the twin's default;
//   - an update may change only what Kubernetes lets change of a running pod
//     (policies.CheckPodUpdate);
//   - the consumer may run, across all its twin namespaces, no more than its
//     ResourceOffer grants, counted as Kubernetes counts requests.
//
// The virtual node's capacity already stops the consumer's scheduler from
// overbooking; this is the provider's own check, which a misbehaving or
// misconfigured consumer cannot skip.
package shadowpod

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Path is where the API server sends ShadowPod admission requests.
const Path = "/validate-shadowpod"

// Validator checks ShadowPods against their consumer's offer.
type Validator struct {
	// Reader reads namespaces and offers (the manager's cache).
	Reader  client.Reader
	Decoder admission.Decoder
	// Usage counts what the ShadowPods already request.
	Usage *Usage

	ledger ledger
}

// Handle answers one ShadowPod creation or update.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	if err := v.Decoder.DecodeRaw(req.Object, sp); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	var old *virtualkubeletv1alpha1.ShadowPod
	if req.Operation == admissionv1.Update {
		old = &virtualkubeletv1alpha1.ShadowPod{}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
	}
	ns := &corev1.Namespace{}
	if err := v.Reader.Get(ctx, client.ObjectKey{Name: req.Namespace}, ns); err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	consumer := ns.Labels[sharingv1alpha1.TwinNamespaceLabel]
	if consumer == "" {
		return admission.Denied(fmt.Sprintf("namespace %s is not a twin namespace of any consumer: ShadowPods are only accepted in the namespaces a consumer's offloading created", req.Namespace))
	}
	offer, err := offerFor(ctx, v.Reader, consumer)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if offer == nil {
		return admission.Denied(fmt.Sprintf("no ResourceOffer on this cluster has spec.clusterId %q: commit one for consumer %s before it offloads pods", consumer, consumer))
	}
	if msg := policyDenial(old, sp, offer); msg != "" {
		return invalid(msg)
	}
	if old != nil && equality.Semantic.DeepEqual(policies.PodRequests(&old.Spec.Pod), policies.PodRequests(&sp.Spec.Pod)) {
		// The pod takes what it took: a label or image change never needs room.
		return admission.Allowed("")
	}
	return v.admitQuota(ctx, consumer, sp, offer, req.DryRun != nil && *req.DryRun)
}

// policyDenial is the pod policy's verdict as a message naming the
// ShadowPod, the offer and its level, each field and its fix; "" allows.
// An update is held to the pod update rules, and to the pod policy only when
// it changes the pod: like Pod Security admission, a tighter level does not
// stop the consumer from relabelling a pod admitted under the looser one.
func policyDenial(old, sp *virtualkubeletv1alpha1.ShadowPod, offer *sharingv1alpha1.ResourceOffer) string {
	var violations []policies.PodViolation
	if old != nil {
		violations = policies.CheckPodUpdate(&old.Spec.Pod, &sp.Spec.Pod)
	}
	if old == nil || !equality.Semantic.DeepEqual(old.Spec.Pod, sp.Spec.Pod) || !equality.Semantic.DeepEqual(old.Annotations, sp.Annotations) {
		violations = append(violations, policies.CheckPod(&sp.Spec.Pod, sp.Annotations, offer.EffectivePodSecurityLevel())...)
	}
	if len(violations) == 0 {
		return ""
	}
	return fmt.Sprintf("ShadowPod %s/%s breaks the pod policy of ResourceOffer %s/%s (spec.podSecurityLevel %s) for consumer %s: %s",
		sp.Namespace, sp.Name, offer.Namespace, offer.Name, offer.EffectivePodSecurityLevel(), offer.Spec.ClusterID,
		policies.DescribePodViolations("spec.pod.", violations))
}

// invalid denies with 422 Invalid rather than 403 Forbidden: the API server
// passes the code on, and it tells the consumer that retrying the same pod
// will never help (a full offer, 403, may pass later).
func invalid(msg string) admission.Response {
	resp := admission.Denied(msg)
	resp.Result.Code = http.StatusUnprocessableEntity
	resp.Result.Reason = metav1.StatusReasonInvalid
	return resp
}

// admitQuota allows the ShadowPod when what the consumer already runs plus
// its requests fit the offer. Decisions for one consumer are serialized and
// remember what they admitted until the cache shows it (see ledger), so
// concurrent creates never overshoot the offer. A dry run is judged the same
// way but reserves nothing: it stores nothing, so the cache would never show
// it and its reservation would hold room for nothing until it expired.
func (v *Validator) admitQuota(ctx context.Context, consumer string, sp *virtualkubeletv1alpha1.ShadowPod, offer *sharingv1alpha1.ResourceOffer, dryRun bool) admission.Response {
	unlock := v.ledger.lock(consumer)
	defer unlock()
	used, err := v.usedBy(ctx, consumer, admittedKey(sp))
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	requests := policies.PodRequests(&sp.Spec.Pod)
	limits := policies.OfferLimits(offer.Status.Offered)
	missing := policies.MissingFromOffer(limits, used, requests)
	if len(missing) > 0 {
		return admission.Denied(fmt.Sprintf("ShadowPod %s/%s does not fit ResourceOffer %s/%s for consumer %s: missing %s "+
			"(offered %s; already used by the consumer's other pods %s): raise the offer's spec.resources.limits or sharingPercentage, or run fewer pods",
			sp.Namespace, sp.Name, offer.Namespace, offer.Name, offer.Spec.ClusterID, policies.DescribeResources(missing),
			policies.DescribeResources(limits), policies.DescribeResources(used)))
	}
	if !dryRun {
		v.ledger.reserve(consumer, admittedKey(sp), requests)
	}
	return admission.Allowed("")
}

// offerFor is the live ResourceOffer for consumer, nil when there is none.
func offerFor(ctx context.Context, r client.Reader, consumer string) (*sharingv1alpha1.ResourceOffer, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return nil, fmt.Errorf("listing ResourceOffers: %w", err)
	}
	for i := range offers.Items {
		if offers.Items[i].Spec.ClusterID == consumer && offers.Items[i].DeletionTimestamp.IsZero() {
			return &offers.Items[i], nil
		}
	}
	return nil, nil
}

// usedBy sums the requests of the consumer's ShadowPods in all its twins,
// but the one under review (an update replaces it) and those being deleted
// or done (see Usage), plus those admitted that the count does not show yet.
func (v *Validator) usedBy(ctx context.Context, consumer, except string) (corev1.ResourceList, error) {
	if err := v.Usage.ready(ctx); err != nil {
		return nil, err
	}
	twins := &corev1.NamespaceList{}
	if err := v.Reader.List(ctx, twins, client.MatchingLabels{sharingv1alpha1.TwinNamespaceLabel: consumer}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(twins.Items))
	for i := range twins.Items {
		names = append(names, twins.Items[i].Name)
	}
	return v.Usage.SumWithUnseen(names, except, func(seen func(string) bool) corev1.ResourceList {
		return v.ledger.pending(consumer, seen, except)
	}), nil
}
