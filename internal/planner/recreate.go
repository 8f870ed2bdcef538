package planner

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StepRecreate is the step of the Recreate strategy's deletes.
const StepRecreate = "recreate"

// Reasons of the Progressing condition of an apps/v1 set under Recreate,
// upstream's words.
const (
	ReasonRecreateInProgress = "RecreateInProgress"
	ReasonRecreateCompleted  = "RecreateCompleted"
)

// recreatePass is the Recreate update strategy (upstream 1.37's alpha,
// KEP-3541): while any created pod, in the ordinal range or condemned,
// runs an old revision, every such pod that is not already terminating is
// deleted, and nothing is created, so two revisions never run side by
// side. Once all are gone the usual passes create the pods at the update
// revision, in the order of the pod management policy. It reports whether
// it took the sync.
//
// The extended kind adds its own rules: a paused set holds (nothing is
// deleted, and a missing pod comes back at the current revision), the
// lifecycle hooks run before a delete, and a deleted pod leaves
// status.currentReplicas at once. An apps/v1 set gets upstream's exactly
// (recreateAppsV1).
func (p *planner) recreatePass() bool {
	if p.ext == nil {
		return p.set.Spec.UpdateStrategy.Type == appsv1.RecreateStatefulSetStrategyType && p.recreateAppsV1()
	}
	if !p.ext.Recreate || p.paused() {
		return false
	}
	var units [][]Action
	old := false
	for _, s := range p.everyPod() {
		if !isCreated(s.pod) || podRevision(s.pod) == p.update || p.changed[s.ordinal] {
			continue
		}
		old = true
		if isTerminating(s.pod) {
			p.plan.Waits = append(p.plan.Waits, *p.recreateWait(s))
			continue
		}
		units = append(units, p.updateDelete(s, p.recreateReason(s)))
	}
	p.addUnits(StepRecreate, units)
	return old
}

// recreateAppsV1 is upstream 1.37's Recreate for an apps/v1 set. The
// deletes run side by side in slow-start batches whatever the pod
// management policy, counted as upstream counts them: over every ordinal
// of the range, a missing one included, then the condemned pods. Only
// the pods that exist are visited, each at its place. A deleted pod still
// counts in status until the API shows it terminating. The Progressing
// condition says RecreateInProgress while old pods are deleted or
// awaited, and while the new ones are created.
func (p *planner) recreateAppsV1() bool {
	var units []placedUnit
	old := false
	visit := func(at int64, s slot) {
		if !isCreated(s.pod) || podRevision(s.pod) == p.update {
			return
		}
		old = true
		if isTerminating(s.pod) {
			p.plan.Waits = append(p.plan.Waits, *p.recreateWait(s))
			return
		}
		p.deleted[s.ordinal] = true
		units = append(units, placedUnit{at: at, actions: []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod,
			EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete, Reason: p.recreateReason(s)}}})
	}
	for _, s := range p.replicas {
		visit(int64(p.layout.Below(s.ordinal)), s)
	}
	for i, s := range p.condemned {
		visit(int64(p.layout.Len())+int64(i), s)
	}
	p.addPlacedUnits(StepRecreate, units)
	switch {
	case old:
		p.recreateProgress = &appsv1.StatefulSetCondition{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: ReasonRecreateInProgress, Message: "Deleting old revision pods"}
	case p.current != p.update:
		p.recreateProgress = &appsv1.StatefulSetCondition{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: ReasonRecreateInProgress, Message: "Waiting for new-revision pods to be created"}
	}
	return old
}

// everyPod is the observed pods of the ordinal range in order, then the
// condemned pods, highest ordinal first.
func (p *planner) everyPod() []slot {
	return append(append(make([]slot, 0, len(p.replicas)+len(p.condemned)), p.replicas...), p.condemned...)
}

func (p *planner) recreateReason(s slot) string {
	return fmt.Sprintf("Recreate: %s runs old revision %s; every old pod goes before revision %s starts", s.pod.Name, podRevision(s.pod), p.update)
}

func (p *planner) recreateWait(s slot) *Wait {
	return p.waitOn(s, fmt.Sprintf("Recreate: pods are created at revision %s only once every pod of an old revision is gone", p.update), "")
}

// recreateConditions sets an apps/v1 Recreate set's Progressing condition
// as upstream 1.37 does: what recreateAppsV1 said, then, once the update
// is complete (promoted), RecreateCompleted, if the set has the condition
// at all. A condition whose status does not change keeps its
// lastTransitionTime; one whose status, reason and message do not change
// is left as it is.
func (p *planner) recreateConditions(st *appsv1.StatefulSetStatus, promoted bool) {
	if p.ext != nil || p.set.Spec.UpdateStrategy.Type != appsv1.RecreateStatefulSetStrategyType || p.in.Release.RecreateGateOff {
		return
	}
	if p.recreateProgress != nil {
		p.setCondition(st, *p.recreateProgress)
	}
	if promoted && conditionOf(st, appsv1.StatefulSetProgressing) != nil {
		p.setCondition(st, appsv1.StatefulSetCondition{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionFalse,
			Reason: ReasonRecreateCompleted, Message: "All pods recreated successfully"})
	}
}

func (p *planner) setCondition(st *appsv1.StatefulSetStatus, c appsv1.StatefulSetCondition) {
	c.LastTransitionTime = metav1.NewTime(p.in.Now)
	have := conditionOf(st, c.Type)
	switch {
	case have == nil:
		st.Conditions = append(st.Conditions, c)
		return
	case have.Status == c.Status && have.Reason == c.Reason && have.Message == c.Message:
		return
	case have.Status == c.Status:
		c.LastTransitionTime = have.LastTransitionTime
	}
	*have = c
}

func conditionOf(st *appsv1.StatefulSetStatus, t appsv1.StatefulSetConditionType) *appsv1.StatefulSetCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}
