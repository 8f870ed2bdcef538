package invariant

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// holding records the failure policy's hold of failed, running revision,
// with id.
func holding(id string, action v1alpha1.HoldAction, failed, revision string) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate.OnFailure = v1alpha1.FailureRollback
		s.Status.Hold = &v1alpha1.RolloutHold{ID: id, Action: action, FailedRevision: failed, Revision: revision, Time: metav1.NewTime(t0)}
	}
}

// released names hold id in the release annotation.
func released(id string) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Annotations = map[string]string{v1alpha1.ReleaseHoldAnnotation: id}
	}
}

// wroteSpec gives the set a managedFields entry of manager on the main
// resource (subresource "" ) or on subresource, written at second sec.
func wroteSpec(manager, subresource string, sec int) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.ManagedFields = append(s.ManagedFields, metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
			Subresource: subresource, Time: &metav1.Time{Time: t0.Add(secs(sec))}, FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:template":{}}}`)})
	}
}

// holdCases judge RuleNoSpecWrite and RuleHoldRevision; TestExtendedRules
// runs them.
var holdCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "the controller writing an extended set's spec breaks no-spec-write",
	history: func() *history {
		h := threeReadyExt(wroteSpec("kubectl", "", 0))
		return h.add(5, modified, mkExt(3, gen(2), wroteSpec("kubectl", "", 0), wroteSpec(v1alpha1.ControllerFieldManager, "", 5)))
	},
	want: []Rule{RuleNoSpecWrite},
}, {
	name: "the controller writing the status, and others writing the spec, is fine",
	history: func() *history {
		h := threeReadyExt(wroteSpec("argocd-controller", "", 0), wroteSpec(v1alpha1.ControllerFieldManager, "status", 0))
		h.add(5, modified, mkExt(3, gen(2), wroteSpec("argocd-controller", "", 5), wroteSpec(v1alpha1.ControllerFieldManager, "status", 5)))
		return h.add(6, modified, mkExt(3, gen(2), wroteSpec("argocd-controller", "", 5), wroteSpec(v1alpha1.ControllerFieldManager, "status", 6)))
	},
}, {
	name: "a pod created at the revision a rollback holds breaks hold-revision",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1")).add(41, added, mkPod(2, "b", rev("web-r2")))
	},
	want: []Rule{RuleHoldRevision},
}, {
	name: "the pod comes back at the revision the hold runs",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1")).add(41, added, mkPod(2, "b", rev("web-r1")))
	},
}, {
	name: "a pod changed in place to the held revision breaks hold-revision",
	history: func() *history {
		h := threeReadyExt(extRevisions("web-r1", "web-r1"), holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1"))
		return h.add(40, modified, mkPod(2, "a", ready, rev("web-r2")))
	},
	want: []Rule{RuleHoldRevision},
}, {
	name: "self-healing the failed revision's pod before the status names the hold's revision is no update-revision delete",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1"), extRevisions("web-r1", "web-r2"))
	},
}, {
	name: "a released hold lets the failed revision roll out again",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1"), released("web-r2@1")).add(41, added, mkPod(2, "b", rev("web-r2")))
	},
}, {
	name: "a release of another hold does not release this one",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1"), released("web-r2@0")).add(41, added, mkPod(2, "b", rev("web-r2")))
	},
	want: []Rule{RuleHoldRevision},
}, {
	name: "a spec change not yet observed ends what the hold says",
	history: func() *history {
		return rolledBackAway(holding("web-r2@1", v1alpha1.HoldRolledBack, "web-r2", "web-r1"), gen(2), unobserved).add(41, added, mkPod(2, "b", rev("web-r2")))
	},
}, {
	name: "a Paused hold is a pause: deleting an unfinished pod in range breaks paused-delete",
	history: func() *history {
		h := threeReadyExt(extRevisions("web-r1", "web-r2"), holding("web-r2@1", v1alpha1.HoldPaused, "web-r2", "web-r2"))
		return h.add(40, modified, mkPod(1, "a", ready, terminating))
	},
	want: []Rule{RulePausedDelete},
}}

// rolledBackAway is a set whose web-2 ran revision web-r2 and was not
// Ready when, at second 20, the version with opts (a hold) came; web-2
// goes at second 40, self-healed, and nothing is created yet.
func rolledBackAway(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, extRevisions("web-r1", "web-r2")))
	h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
	h.add(1.1, added, mkPod(1, "a")).add(1.5, modified, mkPod(1, "a", ready))
	h.add(2.1, added, mkPod(2, "a", rev("web-r2")))
	h.add(20, modified, mkExt(3, append([]extOpt{extRevisions("web-r1", "web-r1")}, opts...)...))
	return h.add(40, modified, mkPod(2, "a", rev("web-r2"), terminating)).add(40.1, deleted, mkPod(2, "a", rev("web-r2"), terminating))
}
