// Package shadowpod is the provider's validating webhook of ShadowPods: a
// consumer may run, across all its twin namespaces, no more than its
// ResourceOffer grants. The virtual node's capacity already stops the
// consumer's scheduler from overbooking; this is the provider's own check,
// which a misbehaving or misconfigured consumer cannot skip.
package shadowpod

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
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
	// Reader reads namespaces, offers and ShadowPods (the manager's cache).
	Reader  client.Reader
	Decoder admission.Decoder
}

// Handle answers one ShadowPod creation or update.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete {
		return admission.Allowed("")
	}
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	if err := v.Decoder.DecodeRaw(req.Object, sp); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	ns := &corev1.Namespace{}
	if err := v.Reader.Get(ctx, client.ObjectKey{Name: req.Namespace}, ns); err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	consumer := ns.Labels[sharingv1alpha1.TwinNamespaceLabel]
	if consumer == "" {
		return admission.Denied(fmt.Sprintf("namespace %s is not a twin namespace of any consumer: ShadowPods are only accepted in the namespaces a consumer's offloading created", req.Namespace))
	}
	offer, err := v.offerFor(ctx, consumer)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if offer == nil {
		return admission.Denied(fmt.Sprintf("no ResourceOffer on this cluster has spec.clusterId %q: commit one for consumer %s before it offloads pods", consumer, consumer))
	}
	used, err := v.usedBy(ctx, consumer, client.ObjectKeyFromObject(sp))
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return verdict(sp, offer, used)
}

// verdict allows the ShadowPod when used plus its requests fit the offer.
func verdict(sp *virtualkubeletv1alpha1.ShadowPod, offer *sharingv1alpha1.ResourceOffer, used corev1.ResourceList) admission.Response {
	missing := policies.MissingFromOffer(offer.Status.Offered, used, policies.PodRequests(&sp.Spec.Pod))
	if len(missing) == 0 {
		return admission.Allowed("")
	}
	return admission.Denied(fmt.Sprintf("ShadowPod %s/%s does not fit ResourceOffer %s/%s for consumer %s: missing %s "+
		"(offered %s; already used by the consumer's other pods %s): raise the offer's spec.resources.limits or sharingPercentage, or run fewer pods",
		sp.Namespace, sp.Name, offer.Namespace, offer.Name, offer.Spec.ClusterID, policies.DescribeResources(missing),
		policies.DescribeResources(offer.Status.Offered), policies.DescribeResources(used)))
}

func (v *Validator) offerFor(ctx context.Context, consumer string) (*sharingv1alpha1.ResourceOffer, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := v.Reader.List(ctx, offers); err != nil {
		return nil, err
	}
	for i := range offers.Items {
		if offers.Items[i].Spec.ClusterID == consumer && offers.Items[i].DeletionTimestamp.IsZero() {
			return &offers.Items[i], nil
		}
	}
	return nil, nil
}

// usedBy sums the requests of the consumer's ShadowPods in all its twins, but
// the one under review (an update replaces it) and those being deleted or done.
func (v *Validator) usedBy(ctx context.Context, consumer string, except client.ObjectKey) (corev1.ResourceList, error) {
	twins := &corev1.NamespaceList{}
	if err := v.Reader.List(ctx, twins, client.MatchingLabels{sharingv1alpha1.TwinNamespaceLabel: consumer}); err != nil {
		return nil, err
	}
	used := corev1.ResourceList{}
	for _, ns := range twins.Items {
		sps := &virtualkubeletv1alpha1.ShadowPodList{}
		if err := v.Reader.List(ctx, sps, client.InNamespace(ns.Name)); err != nil {
			return nil, err
		}
		for i := range sps.Items {
			sp := &sps.Items[i]
			if client.ObjectKeyFromObject(sp) == except || !sp.DeletionTimestamp.IsZero() ||
				sp.Status.Phase == corev1.PodSucceeded || sp.Status.Phase == corev1.PodFailed {
				continue
			}
			policies.AddRequests(used, policies.PodRequests(&sp.Spec.Pod))
		}
	}
	return used, nil
}
