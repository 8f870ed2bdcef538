package invariant

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// judgeReserved checks RuleReservedOrdinal for a newly created pod of an
// extended set.
func (r *replay) judgeReserved(ev Event, pod *corev1.Pod) {
	for _, st := range r.sets {
		if !st.extended() || st.ns != pod.Namespace || !owned(pod, st.uid) {
			continue
		}
		ord, ok := parseOrdinal(st.name, pod.Name)
		if !ok {
			continue
		}
		var specs [][]v1alpha1.OrdinalRange
		for _, v := range st.history.within(ev.Time.Add(-r.opts.Window), ev.Time) {
			if x := st.extOf(v); x != nil {
				specs = append(specs, ReservedOrdinals(x))
			}
		}
		if len(specs) > 0 && allReserve(specs, ord) {
			r.violate(RuleReservedOrdinal, key(pod.Namespace, pod.Name), ev,
				"pod %s created at ordinal %d, which every spec of %s within the window reserves", pod.Name, ord, st.name)
		}
	}
}

func allReserve(specs [][]v1alpha1.OrdinalRange, ord int32) bool {
	for _, ranges := range specs {
		if !reserves(ranges, ord) {
			return false
		}
	}
	return true
}

func reserves(ranges []v1alpha1.OrdinalRange, ord int32) bool {
	for _, rg := range ranges {
		if rg.Low <= ord && ord <= rg.High {
			return true
		}
	}
	return false
}

// setOrdinals returns the ordinals version v of a set wants pods at,
// lowest first (Ordinals, with the ranges an extended set reserves).
func (r *replay) setOrdinals(v *appsv1.StatefulSet) []int32 {
	return withoutOffline(Ordinals(v, r.reserved[v]), r.offline[v])
}

// inRange reports whether version v of a set wants a pod at ord: apps/v1's
// range, or for an extended set with reserved ordinals, one of
// setOrdinals.
func (r *replay) inRange(v *appsv1.StatefulSet, ord int32) bool {
	if reserves(r.offline[v], ord) {
		return false
	}
	ranges := r.reserved[v]
	if len(ranges) == 0 {
		return inRange(v, ord)
	}
	start, end := span(v)
	if ord < start || reserves(ranges, ord) {
		return false
	}
	free := int32(0)
	for j := start; j < ord; j++ {
		if !reserves(ranges, j) {
			free++
		}
	}
	return free < end-start
}
