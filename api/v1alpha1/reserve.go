package v1alpha1

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// DeleteRequestedLabel is the pod label that, set to "true" on a pod of an
// extended set, asks the controller to delete that pod and create it
// again, within rollingUpdate.maxUnavailable: the chosen pod is replaced,
// and no other.
const DeleteRequestedLabel = "apps.ordinal.dev/delete-requested"

// OrdinalRange is the ordinals from Low to High, both included.
//
// +kubebuilder:object:generate=false
type OrdinalRange struct {
	Low, High int32
}

// ParseReserveOrdinals reads spec.reserveOrdinals: each entry an ordinal
// (an integer, or a string of one) or a range "low-high" with low <= high.
// The schema refuses anything else; for an object that did not pass
// through it, the entries that parse are returned with an error naming
// the others.
func ParseReserveOrdinals(list []intstr.IntOrString) ([]OrdinalRange, error) {
	return parseOrdinalList("spec.reserveOrdinals", list)
}

// parseOrdinalList reads a list of ordinals and ranges; field names the
// list in errors.
func parseOrdinalList(field string, list []intstr.IntOrString) ([]OrdinalRange, error) {
	out := make([]OrdinalRange, 0, len(list))
	var errs []error
	for _, v := range list {
		r, err := parseOrdinalRange(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

func parseOrdinalRange(v intstr.IntOrString) (OrdinalRange, error) {
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return OrdinalRange{}, fmt.Errorf("%d is negative", v.IntVal)
		}
		return OrdinalRange{v.IntVal, v.IntVal}, nil
	}
	lowText, highText, isRange := strings.Cut(v.StrVal, "-")
	if !isRange {
		highText = lowText
	}
	low, errLow := parseOrdinal(lowText)
	high, errHigh := parseOrdinal(highText)
	switch {
	case errLow != nil || errHigh != nil:
		return OrdinalRange{}, fmt.Errorf("%q is not an ordinal or a range \"low-high\" of ordinals", v.StrVal)
	case low > high:
		return OrdinalRange{}, fmt.Errorf("%q: the range's low end is above its high end", v.StrVal)
	}
	return OrdinalRange{low, high}, nil
}

// parseOrdinal accepts decimal digits only: no sign, no spaces.
func parseOrdinal(s string) (int32, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not an ordinal", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not an ordinal", s)
	}
	return int32(n), nil
}
