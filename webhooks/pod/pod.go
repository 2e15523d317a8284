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

// Package pod is the mutating webhook that places the pods of an offloaded
// namespace: it adds the toleration of the virtual-node taint and the
// required node affinity that encode the namespace's podOffloadingStrategy
// and clusterSelector (policies.PlacementFor), so no workload needs
// hand-written scheduling constraints to be offloaded.
package pod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Path is where the API server sends pod admission requests.
const Path = "/mutate-pod"

// Mutator adds placement to pods created in offloaded namespaces.
type Mutator struct {
	// Reader reads NamespaceOffloadings and namespaces (the manager's cache).
	Reader client.Reader
	// LiveReader reads the API server itself (the manager's API reader),
	// only where the cache may be behind and a wrong answer lasts (see
	// notOffloaded); nil trusts the cache.
	LiveReader client.Reader
}

// placementView is the part of a pod the Mutator reads and may change. The
// admission request's pod is decoded only this far, and the answer patches
// only the members placement sets: decoding, encoding and diffing whole
// pods was most of the webhook's cost in the consumer's manager (issue 17,
// docs/performance.md, lever 19), and a whole-pod diff removes every field
// this client's API types do not know, such as a newer API server's. Such
// fields now survive anywhere but inside tolerations and affinity, which
// are replaced whole when placement changes them.
type placementView struct {
	Spec struct {
		NodeName     string              `json:"nodeName,omitempty"`
		NodeSelector map[string]string   `json:"nodeSelector,omitempty"`
		Tolerations  []corev1.Toleration `json:"tolerations,omitempty"`
		Affinity     *corev1.Affinity    `json:"affinity,omitempty"`
	} `json:"spec"`
}

// Handle answers one pod creation.
func (m *Mutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if len(req.Object.Raw) == 0 {
		return admission.Errored(http.StatusBadRequest, errors.New("the admission request carries no pod"))
	}
	var view placementView
	if err := json.Unmarshal(req.Object.Raw, &view); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the pod: %w", err))
	}
	spec := &corev1.PodSpec{NodeName: view.Spec.NodeName, NodeSelector: view.Spec.NodeSelector,
		Tolerations: view.Spec.Tolerations, Affinity: view.Spec.Affinity}
	no := &offloadingv1alpha1.NamespaceOffloading{}
	err := m.Reader.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: offloadingv1alpha1.RequiredName}, no)
	switch {
	case apierrors.IsNotFound(err):
		return m.notOffloaded(ctx, req.Namespace)
	case err != nil:
		return admission.Errored(http.StatusInternalServerError, err)
	case spec.NodeName != "":
		return admission.Allowed("the pod is already bound to a node")
	case !no.DeletionTimestamp.IsZero():
		// Unoffloading evicts the pods of virtual nodes so that their
		// controllers recreate them here; placed again, a Remote-strategy
		// replacement would only go back to the provider and be evicted anew.
		return admission.Allowed("the namespace is being unoffloaded: the pod stays in this cluster")
	}
	placed := spec.DeepCopy()
	Place(placed, policies.PlacementFor(policies.PodStrategyOf(no), no.Spec.ClusterSelector))
	if policies.OnlyOnVirtualNodes(placed) {
		// Bound, it is governed by the NotReady policy: applied now, the
		// offloaded-pod controller has nothing to patch once it is bound.
		// An annotation admission should have refused falls back to the
		// default, as that controller does (and logs).
		p, _ := policies.NotReadyPolicyOf(no)
		placed.Tolerations, _ = policies.WithNotReadyPolicy(placed.Tolerations, p)
	}
	return placementPatch(spec, placed)
}

// patchOperation is one JSON patch (RFC 6902) operation.
type patchOperation struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// placementPatch answers with the members placement changed, each set whole
// ("add" replaces a member that exists), or allows the pod as it is.
func placementPatch(spec, placed *corev1.PodSpec) admission.Response {
	var ops []patchOperation
	if !equality.Semantic.DeepEqual(placed.Tolerations, spec.Tolerations) {
		ops = append(ops, patchOperation{Op: "add", Path: "/spec/tolerations", Value: placed.Tolerations})
	}
	if !equality.Semantic.DeepEqual(placed.Affinity, spec.Affinity) {
		ops = append(ops, patchOperation{Op: "add", Path: "/spec/affinity", Value: placed.Affinity})
	}
	if len(ops) == 0 {
		return admission.Allowed("the pod already carries its placement")
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp := admission.Allowed("")
	resp.Patch, resp.PatchType = patch, ptr.To(admissionv1.PatchTypeJSONPatch)
	return resp
}

// notOffloaded answers for a namespace without a NamespaceOffloading. One
// labelled for scheduling is being offloaded in the same apply (Flux applies
// a folder in one batch): its pods are refused for now, and their controllers
// retry until the NamespaceOffloading exists, instead of being admitted
// without placement and stuck Pending for good.
//
// The API server calls this webhook only for pods of namespaces it sees
// labelled, so a cached namespace without the label is most likely the
// cache lagging a label just added; the label is then read from the API
// server before a pod is admitted without placement, which it keeps.
func (m *Mutator) notOffloaded(ctx context.Context, namespace string) admission.Response {
	labelled, err := schedulingEnabled(ctx, m.Reader, namespace)
	if err == nil && !labelled && m.LiveReader != nil {
		labelled, err = schedulingEnabled(ctx, m.LiveReader, namespace)
	}
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if !labelled {
		return admission.Allowed("the namespace is not offloaded")
	}
	return admission.Denied(fmt.Sprintf("namespace %s is labelled %s=true but has no NamespaceOffloading named %q yet: "+
		"pods are admitted once it exists (controllers retry on their own); create it, or remove the label if the namespace is not to be offloaded",
		namespace, offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.RequiredName))
}

// schedulingEnabled reads whether namespace carries the label that asks
// for its pods to be placed.
func schedulingEnabled(ctx context.Context, r client.Reader, namespace string) (bool, error) {
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return false, err
	}
	return ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel] == "true", nil
}

// Place adds the placement to a pod spec: missing tolerations appended, the
// required node affinity ANDed with the pod's own (policies.MergeRequiredTerms).
func Place(spec *corev1.PodSpec, p policies.PodPlacement) {
	for _, t := range p.Tolerations {
		if !hasToleration(spec.Tolerations, t) {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
	if len(p.NodeSelectorTerms) == 0 {
		return
	}
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.NodeAffinity == nil {
		spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := spec.Affinity.NodeAffinity
	var own []corev1.NodeSelectorTerm
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		own = na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	if implies(own, p.NodeSelectorTerms) {
		return // already placed (a reinvoked webhook, or written by hand)
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
		NodeSelectorTerms: policies.MergeRequiredTerms(own, p.NodeSelectorTerms)}
}

// implies reports whether every one of the pod's terms already contains one
// of the placement's terms, so the pod can only land where placement allows.
func implies(own, placement []corev1.NodeSelectorTerm) bool {
	if len(own) == 0 {
		return false
	}
	for _, a := range own {
		if !slices.ContainsFunc(placement, func(b corev1.NodeSelectorTerm) bool { return contains(a, b) }) {
			return false
		}
	}
	return true
}

// contains reports whether term a has every requirement of term b.
func contains(a, b corev1.NodeSelectorTerm) bool {
	has := func(set []corev1.NodeSelectorRequirement) func(corev1.NodeSelectorRequirement) bool {
		return func(r corev1.NodeSelectorRequirement) bool {
			return slices.ContainsFunc(set, func(x corev1.NodeSelectorRequirement) bool { return equality.Semantic.DeepEqual(x, r) })
		}
	}
	for _, r := range b.MatchExpressions {
		if !has(a.MatchExpressions)(r) {
			return false
		}
	}
	for _, r := range b.MatchFields {
		if !has(a.MatchFields)(r) {
			return false
		}
	}
	return true
}

func hasToleration(have []corev1.Toleration, t corev1.Toleration) bool {
	for _, h := range have {
		if h.MatchToleration(&t) {
			return true
		}
	}
	return false
}
