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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// offers compares the ResourceOffers a provider makes.
func (d *diff) offers() {
	keys := map[string]bool{}
	for k := range d.b.Offers {
		keys[k] = true
	}
	for k := range d.h.Offers {
		keys[k] = true
	}
	for _, key := range sortedKeys(keys) {
		b, h := d.b.Offers[key], d.h.Offers[key]
		switch {
		case h == nil:
			d.add(Change{Kind: OfferWithdrawn, Message: fmt.Sprintf(
				"withdraws the offer to %s: %s's virtual node for %s goes away, the pods on it are evicted and namespaces offloaded there are withdrawn",
				d.consumerOf(b), d.consumerOf(b), d.h.displayName())})
		case b == nil:
			if d.validOffer(h) {
				msg := fmt.Sprintf("offers %s to %s, labels %s", amount(h), d.consumerOf(h), formatLabels(h.Spec.Labels))
				if len(h.Spec.ExposedLabelKeys) > 0 {
					msg += ", and the label keys " + formatKeys(h.Spec.ExposedLabelKeys) + " from its providers' virtual nodes where they agree (spec.exposedLabelKeys)"
				}
				d.add(Change{Kind: OfferAdded, Message: msg})
			}
		case equality.Semantic.DeepEqual(b.Spec, h.Spec):
		case b.Spec.ClusterID != h.Spec.ClusterID:
			d.add(Change{Kind: InvalidOffer, Rejected: true, Message: fmt.Sprintf(
				"ResourceOffer %s: spec.clusterId is immutable (%s → %s): remove this offer and add a new ResourceOffer for the other consumer",
				key, b.Spec.ClusterID, h.Spec.ClusterID)})
		default:
			if d.validOffer(h) {
				d.offerChanged(b, h)
			}
		}
	}
}

// consumerOf names the consumer of an offer: its fleet folder when one has
// the offer's cluster ID, else the name the offer gives.
func (d *diff) consumerOf(o *sharingv1alpha1.ResourceOffer) string {
	for _, s := range []*Snapshot{d.head, d.base} {
		if c := s.clusterByID(o.Spec.ClusterID); c != nil {
			return c.Name
		}
	}
	if o.Spec.ClusterName != "" {
		return o.Spec.ClusterName
	}
	return "cluster " + o.Spec.ClusterID
}

func (d *diff) validOffer(o *sharingv1alpha1.ResourceOffer) bool {
	prefix := "ResourceOffer " + o.Namespace + "/" + o.Name + ": "
	ok := true
	reject := func(msg string) {
		ok = false
		d.add(Change{Kind: InvalidOffer, Rejected: true, Message: prefix + msg})
	}
	if o.Spec.ClusterID == "" {
		reject("spec.clusterId is empty: set the consumer's CLUSTER_ID")
	}
	if o.HasFixedLimits() && o.Spec.SharingPercentage != nil {
		reject("spec.resources.limits and spec.sharingPercentage are mutually exclusive: keep the fixed limits or the percentage, not both")
	}
	if len(o.Spec.ExposedLabelKeys) > 0 && !o.Spec.Broker {
		reject("spec.exposedLabelKeys needs spec.broker: true: only a broker derives labels from its providers' virtual nodes; set spec.broker: true, or put the labels in spec.labels")
	}
	if p := o.Spec.SharingPercentage; p != nil && (*p < 1 || *p > 100) {
		reject(fmt.Sprintf("spec.sharingPercentage %d is outside 1-100: use a percentage between 1 and 100", *p))
	}
	return ok
}

// amount describes what an offer lends.
func amount(o *sharingv1alpha1.ResourceOffer) string {
	if o.Spec.Broker {
		return fmt.Sprintf("%d %% of its providers' free capacity, resold as a broker (spec.broker)", o.EffectiveSharingPercentage())
	}
	if o.HasFixedLimits() {
		return "a fixed " + formatResources(o.Spec.Resources.Limits)
	}
	return fmt.Sprintf("%d %% of its free allocatable resources", o.EffectiveSharingPercentage())
}

func formatResources(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, n := range resourceNames(l) {
		q := l[n]
		parts = append(parts, string(n)+" "+q.String())
	}
	return strings.Join(parts, ", ")
}

func (d *diff) offerChanged(b, h *sharingv1alpha1.ResourceOffer) {
	consumer := d.consumerOf(h)
	switch {
	case b.HasFixedLimits() && h.HasFixedLimits():
		var shrinks, grows []string
		for _, n := range resourceNames(b.Spec.Resources.Limits, h.Spec.Resources.Limits) {
			old, hadOld := b.Spec.Resources.Limits[n]
			cur, hasCur := h.Spec.Resources.Limits[n]
			switch {
			case hadOld && !hasCur:
				shrinks = append(shrinks, fmt.Sprintf("%s %s → none", n, old.String()))
			case !hadOld && hasCur:
				grows = append(grows, fmt.Sprintf("%s none → %s", n, cur.String()))
			case cur.Cmp(old) < 0:
				shrinks = append(shrinks, fmt.Sprintf("%s %s → %s", n, old.String(), cur.String()))
			case cur.Cmp(old) > 0:
				grows = append(grows, fmt.Sprintf("%s %s → %s", n, old.String(), cur.String()))
			}
		}
		if len(shrinks) > 0 {
			d.add(Change{Kind: OfferShrink, Message: fmt.Sprintf(
				"offer to %s shrinks: %s; pods already on %s's virtual node for %s keep running, new ones may no longer fit",
				consumer, strings.Join(shrinks, ", "), consumer, d.h.displayName())})
		}
		if len(grows) > 0 {
			d.add(Change{Kind: OfferChange, Message: fmt.Sprintf("offer to %s grows: %s", consumer, strings.Join(grows, ", "))})
		}
	case !b.HasFixedLimits() && !h.HasFixedLimits():
		bp, hp := b.EffectiveSharingPercentage(), h.EffectiveSharingPercentage()
		if hp < bp {
			d.add(Change{Kind: OfferShrink, Message: fmt.Sprintf(
				"offer to %s shrinks: spec.sharingPercentage %d → %d of free allocatable; pods already there keep running, new ones may no longer fit",
				consumer, bp, hp)})
		} else if hp > bp {
			d.add(Change{Kind: OfferChange, Message: fmt.Sprintf("offer to %s grows: spec.sharingPercentage %d → %d of free allocatable", consumer, bp, hp)})
		}
	default:
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf("offer to %s switches from %s to %s", consumer, amount(b), amount(h))})
	}
	switch {
	case !b.Spec.Broker && h.Spec.Broker:
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf(
			"offer to %s becomes a broker's (spec.broker): it resells this cluster's providers, and %s's pods offloaded here run at them, two hops away, not on this cluster's nodes", consumer, consumer)})
	case b.Spec.Broker && !h.Spec.Broker:
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf(
			"offer to %s stops being a broker's: it offers this cluster's own nodes, and %s's pods running at this cluster's providers are evicted back here", consumer, consumer)})
	}
	if !equality.Semantic.DeepEqual(b.Spec.Labels, h.Spec.Labels) {
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf("labels offered to %s: %s → %s (copied onto its virtual node; cluster selectors see them)",
			consumer, formatLabels(b.Spec.Labels), formatLabels(h.Spec.Labels))})
	}
	if !slices.Equal(b.Spec.ExposedLabelKeys, h.Spec.ExposedLabelKeys) {
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf(
			"label keys exposed to %s: %s → %s (spec.exposedLabelKeys: copied onto its virtual node from this cluster's providers' virtual nodes, with the value they agree on; a key they disagree on is left out)",
			consumer, formatKeys(b.Spec.ExposedLabelKeys), formatKeys(h.Spec.ExposedLabelKeys))})
	}
	if b.Spec.Suspend != h.Spec.Suspend {
		d.add(Change{Kind: OfferChange, Message: fmt.Sprintf("offer to %s: spec.suspend %t → %t", consumer, b.Spec.Suspend, h.Spec.Suspend)})
	}
}

// formatKeys lists label keys as the plan shows them: "[a, b]", or "none".
func formatKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return "[" + strings.Join(keys, ", ") + "]"
}

func resourceNames(lists ...corev1.ResourceList) []corev1.ResourceName {
	seen := map[string]bool{}
	for _, l := range lists {
		for n := range l {
			seen[string(n)] = true
		}
	}
	var out []corev1.ResourceName
	for _, n := range sortedKeys(seen) {
		out = append(out, corev1.ResourceName(n))
	}
	return out
}
