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
