package osts

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// member is an extended set of group "zones", Available and settled,
// with the given RolloutGroup condition reason ("" for none).
func member(name, reason string, opts ...func(*v1alpha1.StatefulSet)) *v1alpha1.StatefulSet {
	s := &v1alpha1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 1}}
	s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{RolloutGroup: "zones"}
	s.Status = v1alpha1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, UpdatedReplicas: 2, CurrentRevision: "r1", UpdateRevision: "r1",
		Conditions: []metav1.Condition{{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionTrue}}}
	switch reason {
	case v1alpha1.RolloutGroupHolding:
		s.Status.Conditions = append(s.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionRolloutGroup, Status: metav1.ConditionTrue, Reason: reason})
	case v1alpha1.RolloutGroupWaiting:
		s.Status.Conditions = append(s.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionRolloutGroup, Status: metav1.ConditionFalse, Reason: reason})
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func unavailable(s *v1alpha1.StatefulSet) { s.Status.Conditions[0].Status = metav1.ConditionFalse }
func midRollout(s *v1alpha1.StatefulSet)  { s.Status.UpdateRevision, s.Status.UpdatedReplicas = "r2", 1 }
func unobserved(s *v1alpha1.StatefulSet)  { s.Generation = 2 }

func TestGroupTurn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     *v1alpha1.StatefulSet
		others  []*v1alpha1.StatefulSet
		pending bool
		claimed string
		want    string // "claim", "holding", "idle" or the wait
	}{
		{"a set with nothing to roll is idle", member("db-b", ""), nil, false, "", "idle"},
		{"a set alone in its group takes the turn", member("db-b", ""), nil, true, "", "claim"},
		{"a set whose status records the turn holds it", member("db-b", v1alpha1.RolloutGroupHolding), []*v1alpha1.StatefulSet{member("db-a", v1alpha1.RolloutGroupHolding)}, true, "", "holding"},
		{"another set's turn in status holds it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-c", v1alpha1.RolloutGroupHolding)}, true, "", "osts/db-c has the turn"},
		{"a turn the controller granted and the cache does not show yet holds it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-c", "")}, true, "db-c", "osts/db-c has the turn"},
		{"an unavailable set holds it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-c", "", unavailable)}, true, "", "osts/db-c is not Available"},
		{"a set updating without the turn holds it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-c", "", midRollout)}, true, "", "osts/db-c is updating"},
		{"of two waiting, the first by name goes first", member("db-b", v1alpha1.RolloutGroupWaiting), []*v1alpha1.StatefulSet{member("db-a", v1alpha1.RolloutGroupWaiting, midRollout)}, true, "", "osts/db-a waits too, and goes first (by name)"},
		{"a set later by name that waits does not hold it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-c", v1alpha1.RolloutGroupWaiting, midRollout)}, true, "", "claim"},
		{"a change not yet observed on an earlier set holds it back", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-a", "", unobserved)}, true, "", "osts/db-a waits too, and goes first (by name)"},
		{"sets of another group do not count", member("db-b", ""), []*v1alpha1.StatefulSet{member("db-a", v1alpha1.RolloutGroupHolding, func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate.RolloutGroup = "other"
		})}, true, "", "claim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := GroupTurn(tc.set, append(tc.others, tc.set), tc.pending, tc.claimed)
			got := turn.Wait
			switch {
			case !turn.Pending:
				got = "idle"
			case turn.Holding:
				got = "holding"
			case turn.Claim:
				got = "claim"
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
