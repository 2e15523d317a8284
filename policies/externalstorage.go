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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// MaxExternalStorageClasses bounds the external classes read from one
// offer, as the ResourceOffer CRD bounds spec.externalStorageClasses.
const MaxExternalStorageClasses = 32

// ParseExternalStorageClasses reads the external classes a provider
// publishes in its offer ConfigMap (a JSON list; "" is none). The provider
// writes it, so every name is checked: the consumer makes claims of these
// classes only, and a malformed offer is an error, not an empty one.
func ParseExternalStorageClasses(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var classes []string
	if err := json.Unmarshal([]byte(s), &classes); err != nil {
		return nil, fmt.Errorf("offer key %s is not a JSON list of class names: %w", sharingv1alpha1.OfferExternalStorageClassesKey, err)
	}
	if len(classes) > MaxExternalStorageClasses {
		return nil, fmt.Errorf("offer key %s lists %d classes, more than %d", sharingv1alpha1.OfferExternalStorageClassesKey, len(classes), MaxExternalStorageClasses)
	}
	for _, c := range classes {
		if errs := validation.IsDNS1123Subdomain(c); len(errs) > 0 {
			return nil, fmt.Errorf("offer key %s: class %q: %s", sharingv1alpha1.OfferExternalStorageClassesKey, c, strings.Join(errs, "; "))
		}
	}
	return classes, nil
}

// ExternalClaimClass is the class of a claim that may be externally
// managed storage, and false for one that never is: a claim without a
// class (the cluster's default class or a classless volume binds it), of
// the virtual class liqo (its own provisioner binds it), or marked
// liqo.io/skip-reflection (whatever its value, as the reflectors read it).
// Whether the class exists on this cluster is the caller's to check.
func ExternalClaimClass(pvc *corev1.PersistentVolumeClaim) (string, bool) {
	if pvc.Spec.StorageClassName == nil {
		return "", false
	}
	class := *pvc.Spec.StorageClassName
	if class == "" || class == sharingv1alpha1.VirtualStorageClassName {
		return "", false
	}
	if _, skip := pvc.Annotations[virtualkubeletv1alpha1.SkipReflectionAnnotation]; skip {
		return "", false
	}
	return class, true
}

// ExternalStoragePeer is one running peering as the external-storage
// decision sees it for one namespace.
type ExternalStoragePeer struct {
	ClusterID, ClusterName string
	// Offloaded: the namespace's twin on this peer is Ready.
	Offloaded bool
	// TwinPending: the namespace's twin on this peer is known but not Ready.
	TwinPending bool
	// Classes are the external classes the peer's offer lists.
	Classes []string
	// OfferError is why the peer's offer could not be read ("" when it was).
	OfferError string
}

// ExternalClaimAction is what the consumer does with a claim of a class it
// does not have.
type ExternalClaimAction int

const (
	// ExternalClaimIgnore leaves the claim alone: nothing of Spillway's is
	// involved (the namespace is offloaded nowhere and no peer offers the class).
	ExternalClaimIgnore ExternalClaimAction = iota
	// ExternalClaimReflect makes the twin claim on the one peer of ClusterID.
	ExternalClaimReflect
	// ExternalClaimWait decides later: a peer that matters is not known yet.
	ExternalClaimWait
	// ExternalClaimRefuse leaves the claim Pending with a Warning Event.
	ExternalClaimRefuse
)

// ExternalClaimDecision is what to do with one claim, and why.
type ExternalClaimDecision struct {
	Action ExternalClaimAction
	// ClusterID is the peer that holds the claim, for ExternalClaimReflect.
	ClusterID string
	// Reason and Message are the Event's, for ExternalClaimRefuse and Wait.
	Reason, Message string
}

// Event reasons of claims that are not reflected.
const (
	ReasonExternalClassNotOffered = "ExternalClassNotOffered"
	ReasonExternalClassAmbiguous  = "ExternalClassAmbiguous"
	ReasonNamespaceNotOffloaded   = "NamespaceNotOffloaded"
)

// ExternalClaimDecisionFor decides where a claim of class (one ExternalClaimClass
// accepted and this cluster does not have) lives: on the one peer that the
// claim's namespace is offloaded to and whose offer lists the class. Two
// such peers are refused, not chosen between: the data would land on
// whichever was picked, and pods would follow it there. A peer the
// namespace is being offloaded to, or whose offer cannot be read, could be
// one of them, so the decision waits for it.
func ExternalClaimDecisionFor(pvc *corev1.PersistentVolumeClaim, class string, peers []ExternalStoragePeer) ExternalClaimDecision {
	who := fmt.Sprintf("claim %s/%s of class %q, which this cluster does not have", pvc.Namespace, pvc.Name, class)
	skip := fmt.Sprintf("or annotate the claim %s to keep it here", virtualkubeletv1alpha1.SkipReflectionAnnotation)
	var offloadedTo, offering, chosen []ExternalStoragePeer
	for _, p := range peers {
		offers := slices.Contains(p.Classes, class)
		if (p.Offloaded || p.TwinPending) && p.OfferError != "" {
			return ExternalClaimDecision{Action: ExternalClaimWait, Reason: "ExternalClassUnknown",
				Message: fmt.Sprintf("%s: the offer of %s, to which namespace %s is offloaded, cannot be read (%s); retrying", who, p.ClusterName, pvc.Namespace, p.OfferError)}
		}
		if p.TwinPending && offers {
			return ExternalClaimDecision{Action: ExternalClaimWait, Reason: "TwinNamespaceNotReady",
				Message: fmt.Sprintf("%s: %s offers the class and the twin of namespace %s there is not Ready yet; waiting", who, p.ClusterName, pvc.Namespace)}
		}
		if p.Offloaded {
			offloadedTo = append(offloadedTo, p)
		}
		if offers {
			offering = append(offering, p)
			if p.Offloaded {
				chosen = append(chosen, p)
			}
		}
	}
	switch {
	case len(chosen) == 1:
		return ExternalClaimDecision{Action: ExternalClaimReflect, ClusterID: chosen[0].ClusterID}
	case len(chosen) > 1:
		return ExternalClaimDecision{Action: ExternalClaimRefuse, Reason: ReasonExternalClassAmbiguous,
			Message: fmt.Sprintf("%s: namespace %s is offloaded to %s, which all offer the class (spec.externalStorageClasses), so where its data would live is not clear; "+
				"remove the class from the ResourceOffers of all of them but one, narrow the NamespaceOffloading's clusterSelector to one, %s", who, pvc.Namespace, peerNames(chosen), skip)}
	case len(offering) > 0:
		return ExternalClaimDecision{Action: ExternalClaimRefuse, Reason: ReasonNamespaceNotOffloaded,
			Message: fmt.Sprintf("%s: the class is offered by %s (spec.externalStorageClasses), but namespace %s is not offloaded there; "+
				"offload it to one of them (a NamespaceOffloading whose clusterSelector matches it), %s", who, peerNames(offering), pvc.Namespace, skip)}
	case len(offloadedTo) > 0:
		return ExternalClaimDecision{Action: ExternalClaimRefuse, Reason: ReasonExternalClassNotOffered,
			Message: fmt.Sprintf("%s: namespace %s is offloaded to %s, and none of them offers the class; add %q to spec.externalStorageClasses of one of their ResourceOffers (in the provider's git), "+
				"create the class on this cluster to bind the claim here, %s", who, pvc.Namespace, peerNames(offloadedTo), class, skip)}
	}
	return ExternalClaimDecision{Action: ExternalClaimIgnore}
}

// peerNames lists peers by cluster name, for messages.
func peerNames(peers []ExternalStoragePeer) string {
	names := make([]string, 0, len(peers))
	for _, p := range peers {
		names = append(names, p.ClusterName)
	}
	return strings.Join(names, ", ")
}
