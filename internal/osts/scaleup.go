package osts

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// scaleUpLimit is scaleStrategy.maxUnavailable scaled to replicas,
// rounding a percentage down and never below 1; 0 when unset, or when it
// cannot be read (which the schema prevents): no limit, as apps/v1.
func scaleUpLimit(s *v1alpha1.StatefulSet) int {
	ss := s.Spec.ScaleStrategy
	if ss == nil || ss.MaxUnavailable == nil {
		return 0
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ss.MaxUnavailable, int(ptr.Deref(s.Spec.Replicas, 1)), false)
	if err != nil {
		return 0
	}
	return max(n, 1)
}
