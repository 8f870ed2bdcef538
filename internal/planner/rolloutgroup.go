package planner

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Condition reasons of the rollout group.
const (
	ReasonRolloutGroupHolding = v1alpha1.RolloutGroupHolding
	ReasonRolloutGroupWaiting = v1alpha1.RolloutGroupWaiting
)

// groupCondition sets or removes the RolloutGroup condition: True while
// the set has the turn (the record another set's sync reads), False while
// it waits, absent when it has no group or nothing to roll.
func (p *planner) groupCondition(conds *[]metav1.Condition) {
	g := p.in.Observed.Group
	c := metav1.Condition{Type: v1alpha1.ConditionRolloutGroup, ObservedGeneration: p.set.Generation, LastTransitionTime: metav1.NewTime(p.in.Now)}
	switch {
	case g == nil || !g.Pending:
		meta.RemoveStatusCondition(conds, v1alpha1.ConditionRolloutGroup)
		return
	case g.Holding || g.Claim:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonRolloutGroupHolding, fmt.Sprintf("the set has the turn of rollout group %s", g.Name)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonRolloutGroupWaiting, fmt.Sprintf("rollout group %s: %s", g.Name, g.Wait)
	}
	meta.SetStatusCondition(conds, c)
}

// groupWaiting reports whether the set's update waits for its group.
func (p *planner) groupWaiting() bool {
	if p.ext == nil {
		return false
	}
	g := p.in.Observed.Group
	return g != nil && g.Pending && !g.Holding
}

// pausedWords is the Progressing message of a held rollout: paused by
// the user or by a hold of the failure policy, or waiting for its rollout
// group.
func (p *planner) pausedWords(st appsv1.StatefulSetStatus) string {
	if h := p.hold; h != nil && h.Action == v1alpha1.HoldPaused {
		return fmt.Sprintf("the rollout of revision %s failed and is held paused at revision %s (status.hold %s)", h.FailedRevision, st.UpdateRevision, h.ID)
	}
	if p.groupWaiting() {
		return fmt.Sprintf("the rollout of revision %s waits for its turn in rollout group %s", st.UpdateRevision, p.in.Observed.Group.Name)
	}
	return fmt.Sprintf("the rollout of revision %s is paused", st.UpdateRevision)
}

// groupWait explains, on the set's highest pod, an update held for its
// rollout group.
func (p *planner) groupWait() {
	if !p.groupWaiting() || len(p.replicas) == 0 {
		return
	}
	g := p.in.Observed.Group
	why := g.Wait
	if g.Claim {
		why = "the set takes the turn now; its status records it, and the update starts at the next sync"
	}
	s := p.replicas[len(p.replicas)-1]
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
		"rolloutGroup %s: sets of the group update one at a time, each once every other is Available and not updating; %s", g.Name, why), ""))
}
