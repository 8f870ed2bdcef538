package invariant

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// gateFalse reports whether pod's in-place readiness gate condition is
// False: the controller has taken it out of service.
func gateFalse(pod *corev1.Pod) bool {
	c := gateOf(pod)
	return c != nil && c.Status == corev1.ConditionFalse
}

func gateOf(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1alpha1.InPlaceReadinessGate {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func hasGate(pod *corev1.Pod) bool {
	return slices.ContainsFunc(pod.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool {
		return g.ConditionType == v1alpha1.InPlaceReadinessGate
	})
}

// containersChanged reports whether a container's image or resources
// differ between two versions of one pod.
func containersChanged(prev, pod *corev1.Pod) bool {
	if len(prev.Spec.Containers) != len(pod.Spec.Containers) {
		return true
	}
	for i := range pod.Spec.Containers {
		a, b := &prev.Spec.Containers[i], &pod.Spec.Containers[i]
		if a.Image != b.Image || !apiequality.Semantic.DeepEqual(a.Resources, b.Resources) {
			return true
		}
	}
	return false
}

func claimVolumes(pod *corev1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out = append(out, v.Name+"="+v.PersistentVolumeClaim.ClaimName)
		}
	}
	return out
}

// judgeInPlace checks the in-place rules on a new version of a pod that
// keeps its UID: RuleInPlaceKeeps and RuleInPlaceGate when its containers
// changed, RuleInPlaceBudget when its gate turned False.
func (r *replay) judgeInPlace(ev Event, st *setTrack, ord int32, prev, pod *corev1.Pod) {
	k := key(pod.Namespace, pod.Name)
	if containersChanged(prev, pod) {
		if prev.Spec.NodeName != "" && pod.Spec.NodeName != prev.Spec.NodeName {
			r.violate(RuleInPlaceKeeps, k, ev, "pod %s changed in place moved from node %s to %s", pod.Name, prev.Spec.NodeName, pod.Spec.NodeName)
		}
		if !slices.Equal(claimVolumes(prev), claimVolumes(pod)) {
			r.violate(RuleInPlaceKeeps, k, ev, "pod %s changed in place mounts claims %v, before %v", pod.Name, claimVolumes(pod), claimVolumes(prev))
		}
		if hasGate(pod) && (!gateFalse(prev) || podReady(prev)) {
			r.violate(RuleInPlaceGate, k, ev, "pod %s had its containers changed in place while its readiness gate was %v and Ready %v", pod.Name, gateStatusOf(prev), podReady(prev))
		}
	}
	if st != nil && st.ext != nil && gateFalse(pod) && !gateFalse(prev) {
		r.judgeGateOff(ev, st, ord)
		r.judgeHookGate(ev, st, ord, pod)
		r.judgeMemberJoinDisruption(ev, st, ord, "took out of service")
	}
}

func gateStatusOf(pod *corev1.Pod) corev1.ConditionStatus {
	if c := gateOf(pod); c != nil {
		return c.Status
	}
	return "absent"
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// judgeGateOff checks RuleInPlaceBudget: the gate of a pod Available
// throughout the window turned False while fewer than maxUnavailable other
// ordinals were unavailable throughout it, in some version of the window.
func (r *replay) judgeGateOff(ev Event, st *setTrack, ord int32) {
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || !allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		return s.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && r.inRange(s, ord)
	}) {
		return
	}
	if !r.overBudget(ev, st, ord, specs, func(s *appsv1.StatefulSet) int { return r.unavailableThroughout(ev, s, ord) }) {
		return
	}
	set := specs[len(specs)-1]
	r.violate(RuleInPlaceBudget, key(st.ns, podName(st.name, ord)), ev,
		"took ordinal %d, Available all along, out of service for an update in place while %d other ordinals were unavailable all along (maxUnavailable %d)",
		ord, r.unavailableThroughout(ev, set, ord), maxUnavailableOf(set))
}
