package invariant

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// KindExtendedSet is the extended StatefulSet (apps.ordinal.dev/v1alpha1).
// Only RuleReservedOrdinal judges it: its other promises differ from
// apps/v1's (Recreate deletes every pod at once, reserved ordinals leave
// holes in the range), so the apps/v1 rules do not apply to its pods.
const KindExtendedSet Kind = "StatefulSet.apps.ordinal.dev"

// extendedTrack follows one extended set name: the ordinals each observed
// version of its spec reserves.
type extendedTrack struct {
	uid      types.UID
	reserved timeline[[]v1alpha1.OrdinalRange]
}

// applyExtendedSet records the set's reserved ordinals. Entries that do
// not parse (the schema refuses them) reserve nothing.
func (r *replay) applyExtendedSet(ev Event, set *v1alpha1.StatefulSet) {
	k := key(set.Namespace, set.Name)
	et := r.extended[k]
	if et == nil || et.uid != set.UID {
		et = &extendedTrack{uid: set.UID}
		r.extended[k] = et
	}
	if ev.Type == watch.Deleted {
		return
	}
	ranges, _ := v1alpha1.ParseReserveOrdinals(set.Spec.ReserveOrdinals)
	et.reserved.add(ev.Time, ranges)
}

// judgeReserved checks RuleReservedOrdinal for a newly created pod.
func (r *replay) judgeReserved(ev Event, pod *corev1.Pod) {
	for k, et := range r.extended {
		setName, ok := strings.CutPrefix(k, pod.Namespace+"/")
		if !ok {
			continue
		}
		ord, ok := parseOrdinal(setName, pod.Name)
		if !ok || !owned(pod, et.uid) {
			continue
		}
		specs := et.reserved.within(ev.Time.Add(-r.opts.Window), ev.Time)
		if len(specs) > 0 && allReserve(specs, ord) {
			r.violate(RuleReservedOrdinal, key(pod.Namespace, pod.Name), ev,
				"pod %s created at ordinal %d, which every spec of %s within the window reserves", pod.Name, ord, setName)
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
