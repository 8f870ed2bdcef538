package invariant

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extendedStatusProblems checks what RuleStatus asks of the extended
// kind's own status fields, beyond the apps/v1 ones.
func (r *replay) extendedStatusProblems(set *v1alpha1.StatefulSet, pods []*corev1.Pod, now time.Time) []string {
	st := set.Status
	var updatedReady, updatedAvailable int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Labels[RevisionLabel] != st.UpdateRevision || !r.healthyAt(p, 0, now) {
			continue
		}
		updatedReady++
		if r.healthyAt(p, set.Spec.MinReadySeconds, now.Add(-r.opts.ReadySlack)) {
			updatedAvailable++
		}
	}
	var out []string
	check := func(field string, g, w int32) {
		if g != w {
			out = append(out, fmt.Sprintf("status.%s is %d, the pods say %d", field, g, w))
		}
	}
	check("updatedReadyReplicas", st.UpdatedReadyReplicas, updatedReady)
	check("updatedAvailableReplicas", st.UpdatedAvailableReplicas, updatedAvailable)
	if sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector); err == nil && st.LabelSelector != sel.String() {
		out = append(out, fmt.Sprintf("status.labelSelector is %q, spec.selector says %q", st.LabelSelector, sel.String()))
	}
	return append(out, conditionProblems(set)...)
}

// conditionProblems checks the Available condition against the counts,
// and a complete rollout's last completed revision and Progressing.
func conditionProblems(set *v1alpha1.StatefulSet) []string {
	st, want := set.Status, wantedOf(set)
	var out []string
	availableWanted := metav1.ConditionFalse
	if int(st.AvailableReplicas) >= int(want)-maxUnavailableOf(ExtendedView(set)) {
		availableWanted = metav1.ConditionTrue
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionAvailable); c == nil || c.Status != availableWanted {
		out = append(out, fmt.Sprintf("condition Available is %s, want %s with %d of %d pods available", conditionWords(c), availableWanted, st.AvailableReplicas, want))
	}
	complete := st.CurrentRevision == st.UpdateRevision && st.Replicas == want && st.UpdatedReplicas == want &&
		st.ReadyReplicas == want && st.AvailableReplicas == want
	if !complete {
		return out
	}
	if st.LastCompletedRevision != st.UpdateRevision {
		out = append(out, fmt.Sprintf("every pod runs %s, Ready and Available, yet status.lastCompletedRevision is %q", st.UpdateRevision, st.LastCompletedRevision))
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionProgressing); c == nil || c.Status != metav1.ConditionTrue {
		out = append(out, fmt.Sprintf("every pod runs %s, Ready and Available, yet condition Progressing is %s", st.UpdateRevision, conditionWords(c)))
	}
	return out
}

func replicasOf(set *v1alpha1.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}

func conditionWords(c *metav1.Condition) string {
	if c == nil {
		return "missing"
	}
	return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
}
