package osts

import (
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// fieldScaleUpMaxUnavailable is the path of the scale-up's limit.
const fieldScaleUpMaxUnavailable = "spec.scaleStrategy.maxUnavailable"

// scaleUpLimit is scaleStrategy.maxUnavailable scaled to replicas
// (planner.ScaleMaxUnavailable); 0 when unset: no limit, as apps/v1. A
// value that cannot be read (which the schema prevents) sets no limit
// either, and is reported in e.Invalid.
func scaleUpLimit(e *planner.Extended, s *v1alpha1.StatefulSet) int {
	ss := s.Spec.ScaleStrategy
	if ss == nil || ss.MaxUnavailable == nil {
		return 0
	}
	n, err := planner.ScaleMaxUnavailable(ss.MaxUnavailable, ptr.Deref(s.Spec.Replicas, 1))
	if err != nil {
		e.Invalid = append(e.Invalid, planner.SpecError{Field: fieldScaleUpMaxUnavailable, Reason: planner.ReasonInvalidMaxUnavailable,
			Message: err.Error() + "; a Parallel scale-up is not limited"})
		return 0
	}
	return n
}
