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

package v1alpha1

import (
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// binaryUnits are the suffixes of byte quantities, each 1024 times the one
// before.
var binaryUnits = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// DisplayQuantity writes a quantity the way people read it, for printer
// columns: bytes in the largest binary unit with one decimal (61847529062
// is 57.6Gi), CPU in cores or millicores (3.5, 500m), counts as integers. It
// is only for display: status.offered keeps the exact quantities.
func DisplayQuantity(name corev1.ResourceName, q resource.Quantity) string {
	switch {
	case isBytes(name):
		return displayBytes(q)
	case name == corev1.ResourceCPU:
		return displayCPU(q)
	}
	if q.MilliValue()%1000 == 0 {
		return strconv.FormatInt(q.Value(), 10)
	}
	return q.String()
}

func isBytes(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		return true
	}
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

func displayBytes(q resource.Quantity) string {
	v := q.AsApproximateFloat64()
	unit := 0
	// 1023.96Ki would print as 1024.0Ki: move up a unit first.
	for unit < len(binaryUnits)-1 && math.Abs(v) >= 1023.95 {
		v /= 1024
		unit++
	}
	if unit == 0 {
		return strconv.FormatInt(q.Value(), 10)
	}
	return trimZeroDecimal(strconv.FormatFloat(v, 'f', 1, 64)) + binaryUnits[unit]
}

func displayCPU(q resource.Quantity) string {
	m := q.MilliValue()
	if m < 1000 && m > -1000 {
		return strconv.FormatInt(m, 10) + "m"
	}
	return trimZeroDecimal(strconv.FormatFloat(float64(m)/1000, 'f', 2, 64))
}

func trimZeroDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// DisplayResources is DisplayQuantity for every resource of a list.
func DisplayResources(list corev1.ResourceList) map[corev1.ResourceName]string {
	if len(list) == 0 {
		return nil
	}
	out := make(map[corev1.ResourceName]string, len(list))
	for name, q := range list {
		out[name] = DisplayQuantity(name, q)
	}
	return out
}
