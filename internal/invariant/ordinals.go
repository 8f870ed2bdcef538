package invariant

import (
	"math"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// The ordinals a set's spec asks for, read from the spec alone. The
// controller derives the same from its own code; the checker and the
// chaos suite derive them here, so that a mistake there is caught rather
// than agreed with.

// Ordinals returns the ordinals set wants pods at, lowest first: the first
// spec.replicas (1 when unset) ordinals from spec.ordinals.start (0 when
// unset) that no range in reserved holds. It stops at the largest ordinal
// a pod name can carry, so it can return fewer.
func Ordinals(set *appsv1.StatefulSet, reserved []v1alpha1.OrdinalRange) []int32 {
	start, replicas := int64(0), int64(1)
	if set.Spec.Ordinals != nil {
		start = int64(set.Spec.Ordinals.Start)
	}
	if set.Spec.Replicas != nil {
		replicas = int64(*set.Spec.Replicas)
	}
	var out []int32
	for ord := start; int64(len(out)) < replicas && ord <= math.MaxInt32; {
		if high, ok := reservedUpTo(reserved, ord); ok {
			ord = high + 1
			continue
		}
		out = append(out, int32(ord))
		ord++
	}
	return out
}

// reservedUpTo reports whether a range holds ord and, if so, the highest
// ordinal of the ranges holding it, from where the search goes on.
func reservedUpTo(reserved []v1alpha1.OrdinalRange, ord int64) (int64, bool) {
	high, ok := int64(0), false
	for _, rg := range reserved {
		if int64(rg.Low) <= ord && ord <= int64(rg.High) {
			high, ok = max(high, int64(rg.High)), true
		}
	}
	return high, ok
}

// ReservedOrdinals reads an extended set's spec.reserveOrdinals: an
// integer entry, or a string of decimal digits, is one ordinal; a string
// "low-high" is the ordinals from low to high, both included, with low <=
// high. Every ordinal fits an int32 and is not negative. The API server
// refuses any other entry; one in an object that did not pass through it
// is skipped, and the others still count.
func ReservedOrdinals(set *v1alpha1.StatefulSet) []v1alpha1.OrdinalRange {
	var out []v1alpha1.OrdinalRange
	for _, entry := range set.Spec.ReserveOrdinals {
		if rg, ok := reserveEntry(entry); ok {
			out = append(out, rg)
		}
	}
	return out
}

func reserveEntry(entry intstr.IntOrString) (v1alpha1.OrdinalRange, bool) {
	if entry.Type == intstr.Int {
		return v1alpha1.OrdinalRange{Low: entry.IntVal, High: entry.IntVal}, entry.IntVal >= 0
	}
	ends := strings.Split(entry.StrVal, "-")
	if len(ends) > 2 {
		return v1alpha1.OrdinalRange{}, false
	}
	low, okLow := decimalOrdinal(ends[0])
	high, okHigh := decimalOrdinal(ends[len(ends)-1])
	return v1alpha1.OrdinalRange{Low: low, High: high}, okLow && okHigh && low <= high
}

// decimalOrdinal reads digits only (no sign, no space) into an ordinal.
func decimalOrdinal(s string) (int32, bool) {
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 31)
	return int32(n), err == nil
}

// FirstUpdatedOrdinal is the lowest ordinal a rolling update replaces:
// spec.ordinals.start plus rollingUpdate.partition. The partition counts
// from the start ordinal, and reserved ordinals below it do not move it.
func FirstUpdatedOrdinal(set *appsv1.StatefulSet) int64 {
	start := int64(0)
	if set.Spec.Ordinals != nil {
		start = int64(set.Spec.Ordinals.Start)
	}
	return start + int64(partitionOf(set))
}
