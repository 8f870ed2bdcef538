package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// scaleUpLimit is version v's spec.scaleStrategy.maxUnavailable scaled
// to its replicas (a percentage rounded down, at least 1), for a Parallel
// extended set; 0 when it has none.
func (st *setTrack) scaleUpLimit(v *appsv1.StatefulSet) int {
	x := st.extOf(v)
	if x == nil || x.Spec.ScaleStrategy == nil || x.Spec.ScaleStrategy.MaxUnavailable == nil || orderedReady(v) {
		return 0
	}
	replicas := 1
	if v.Spec.Replicas != nil {
		replicas = int(*v.Spec.Replicas)
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(x.Spec.ScaleStrategy.MaxUnavailable, replicas, false)
	if err != nil {
		return 0
	}
	return max(n, 1)
}

// judgeScaleUp checks RuleScaleUpBudget for a pod created at ord.
func (r *replay) judgeScaleUp(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if !st.extended() {
		return
	}
	for _, s := range specs {
		n := st.scaleUpLimit(s)
		if n == 0 || r.createdUnhealthy(ev, s, ord) < n {
			return
		}
	}
	set := specs[len(specs)-1]
	r.violate(RuleScaleUpBudget, key(pod.Namespace, pod.Name), ev, "created %s while %d other pods of the range, all there at that moment, were not healthy all along (scaleStrategy.maxUnavailable %d)",
		pod.Name, r.createdUnhealthy(ev, set, ord), st.scaleUpLimit(set))
}

// createdUnhealthy counts the ordinals of set's range other than ord
// whose pod exists at ev and was healthy at no instant of the window: a
// lower bound on the unavailable pods the controller saw, whatever its
// view's age. Missing ordinals are not counted: they are what a scale-up
// creates.
func (r *replay) createdUnhealthy(ev Event, set *appsv1.StatefulSet, ord int32) int {
	from := ev.Time.Add(-r.opts.Window)
	n := 0
	for _, j := range r.setOrdinals(set) {
		pt := r.pods[key(set.Namespace, podName(set.Name, j))]
		if j == ord || pt == nil || pt.live == nil {
			continue
		}
		healthy := pt.history.heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, set.Spec.MinReadySeconds, at)
		})
		if !healthy {
			n++
		}
	}
	return n
}
