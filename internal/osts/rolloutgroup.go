package osts

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// RolloutGroup is the set's rollingUpdate.rolloutGroup; "" without one,
// or when its strategy has no rolling update.
func RolloutGroup(s *v1alpha1.StatefulSet) string {
	ru := s.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || (s.Spec.UpdateStrategy.Type != "" && s.Spec.UpdateStrategy.Type != v1alpha1.RollingUpdateStatefulSetStrategyType) {
		return ""
	}
	return ru.RolloutGroup
}

// GroupTurn judges set s's place in its rollout group, from the
// namespace's extended sets (s among them or not), whether s has an
// update to roll (pending), and the set the controller's memory says
// took the turn and may not show it in its status yet ("" for none, or
// for a caller without that memory). nil when s has no group.
//
// s holds the turn when its status says so. Otherwise it may take it
// when no other set of the group holds it (in status or in memory), is
// not Available, or updates without it, and no other set that waits for
// it has a name that sorts before s's: among sets that want the turn at
// once, the first by name goes first, whatever order they are synced in.
func GroupTurn(s *v1alpha1.StatefulSet, sets []*v1alpha1.StatefulSet, pending bool, claimed string) *planner.GroupTurn {
	g := RolloutGroup(s)
	if g == "" {
		return nil
	}
	t := &planner.GroupTurn{Name: g, Pending: pending, Holding: hasCondition(s, metav1.ConditionTrue, v1alpha1.RolloutGroupHolding)}
	if !pending || t.Holding {
		return t
	}
	if claimed != "" && claimed != s.Name {
		t.Wait = fmt.Sprintf("osts/%s has the turn", claimed)
		return t
	}
	others := slices.DeleteFunc(slices.Clone(sets), func(o *v1alpha1.StatefulSet) bool {
		return o.Namespace != s.Namespace || o.Name == s.Name || RolloutGroup(o) != g
	})
	slices.SortFunc(others, func(a, b *v1alpha1.StatefulSet) int { return strings.Compare(a.Name, b.Name) })
	for _, o := range others {
		if t.Wait = blocks(o, s); t.Wait != "" {
			return t
		}
	}
	t.Claim = true
	return t
}

// blocks says why set o keeps s from taking the group's turn, or "".
func blocks(o, s *v1alpha1.StatefulSet) string {
	waiting := hasCondition(o, metav1.ConditionFalse, v1alpha1.RolloutGroupWaiting)
	switch {
	case hasCondition(o, metav1.ConditionTrue, v1alpha1.RolloutGroupHolding):
		return fmt.Sprintf("osts/%s has the turn", o.Name)
	case !hasCondition(o, metav1.ConditionTrue, ""):
		return fmt.Sprintf("osts/%s is not Available", o.Name)
	case !waiting && updating(o):
		return fmt.Sprintf("osts/%s is updating", o.Name)
	case o.Name < s.Name && (waiting || o.Generation != o.Status.ObservedGeneration):
		return fmt.Sprintf("osts/%s waits too, and goes first (by name)", o.Name)
	}
	return ""
}

// updating reports whether o's status shows a rollout under way.
func updating(o *v1alpha1.StatefulSet) bool {
	st := o.Status
	return st.CurrentRevision != st.UpdateRevision || st.UpdatedReplicas != st.Replicas
}

// hasCondition reports whether s's status has condition RolloutGroup with
// status and reason, or, for reason "", condition Available with status.
func hasCondition(s *v1alpha1.StatefulSet, status metav1.ConditionStatus, reason string) bool {
	if reason == "" {
		c := meta.FindStatusCondition(s.Status.Conditions, v1alpha1.ConditionAvailable)
		return c != nil && c.Status == status
	}
	c := meta.FindStatusCondition(s.Status.Conditions, v1alpha1.ConditionRolloutGroup)
	return c != nil && c.Status == status && c.Reason == reason
}
