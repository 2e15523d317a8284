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
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// CheckPodUpdate judges a change of an offloaded pod's spec by the rules
// Kubernetes applies to a running pod's spec: only the images of containers
// and init containers, activeDeadlineSeconds (set, or shortened; never
// lengthened or removed), tolerations (added, never removed) and scheduling
// gates (removed, never added) may change. The provider's pod exists already,
// and a ShadowPod that says something its pod cannot become would be a lie
// the consumer could use to count less than it runs.
func CheckPodUpdate(old, updated *corev1.PodSpec) []PodViolation {
	var out []PodViolation
	add := func(field, problem string) {
		out = append(out, PodViolation{Field: field, Problem: problem,
			Fix: "a running pod's spec is immutable but for images, activeDeadlineSeconds, added tolerations and removed scheduling gates: delete the pod and create it anew"})
	}
	o, u := old.DeepCopy(), updated.DeepCopy()
	if d := u.ActiveDeadlineSeconds; !equality.Semantic.DeepEqual(d, o.ActiveDeadlineSeconds) {
		switch {
		case d == nil:
			add("activeDeadlineSeconds", "cannot be removed once set")
		case *d <= 0:
			add("activeDeadlineSeconds", fmt.Sprintf("is %d: it must be positive", *d))
		case o.ActiveDeadlineSeconds != nil && *d > *o.ActiveDeadlineSeconds:
			add("activeDeadlineSeconds", fmt.Sprintf("%d → %d: it may only be shortened", *o.ActiveDeadlineSeconds, *d))
		}
	}
	u.ActiveDeadlineSeconds = o.ActiveDeadlineSeconds
	for i, t := range o.Tolerations {
		if !containsToleration(u.Tolerations, t) {
			add(fmt.Sprintf("tolerations[%d]", i), fmt.Sprintf("toleration %q was removed: tolerations may only be added", t.Key))
		}
	}
	u.Tolerations = o.Tolerations
	for _, g := range u.SchedulingGates {
		if !containsGate(o.SchedulingGates, g.Name) {
			add("schedulingGates", fmt.Sprintf("gate %q was added: gates may only be removed", g.Name))
		}
	}
	u.SchedulingGates = o.SchedulingGates
	sameImages(o.Containers, u.Containers)
	sameImages(o.InitContainers, u.InitContainers)
	for _, field := range changedFields(o, u) {
		add(field, "cannot change")
	}
	return out
}

// sameImages copies the old images into updated, where the containers
// still line up, so that what remains to compare is what may not change.
func sameImages(old, updated []corev1.Container) {
	if len(old) != len(updated) {
		return
	}
	for i := range updated {
		if updated[i].Image != "" {
			updated[i].Image = old[i].Image
		}
	}
}

// changedFields names the pod spec fields that differ, descending into
// containers and init containers by index so a message says which one.
func changedFields(old, updated *corev1.PodSpec) []string {
	var out []string
	ov, uv := reflect.ValueOf(*old), reflect.ValueOf(*updated)
	t := ov.Type()
	for i := 0; i < t.NumField(); i++ {
		name := jsonName(t.Field(i))
		a, b := ov.Field(i).Interface(), uv.Field(i).Interface()
		if equality.Semantic.DeepEqual(a, b) {
			continue
		}
		oc, okA := a.([]corev1.Container)
		uc, okB := b.([]corev1.Container)
		if okA && okB && len(oc) == len(uc) {
			for j := range oc {
				for _, f := range changedContainerFields(&oc[j], &uc[j]) {
					out = append(out, fmt.Sprintf("%s[%d].%s", name, j, f))
				}
			}
			continue
		}
		out = append(out, name)
	}
	return out
}

func changedContainerFields(old, updated *corev1.Container) []string {
	var out []string
	ov, uv := reflect.ValueOf(*old), reflect.ValueOf(*updated)
	t := ov.Type()
	for i := 0; i < t.NumField(); i++ {
		if !equality.Semantic.DeepEqual(ov.Field(i).Interface(), uv.Field(i).Interface()) {
			out = append(out, jsonName(t.Field(i)))
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

func containsToleration(ts []corev1.Toleration, t corev1.Toleration) bool {
	for _, have := range ts {
		if equality.Semantic.DeepEqual(have, t) {
			return true
		}
	}
	return false
}

func containsGate(gs []corev1.PodSchedulingGate, name string) bool {
	for _, g := range gs {
		if g.Name == name {
			return true
		}
	}
	return false
}
