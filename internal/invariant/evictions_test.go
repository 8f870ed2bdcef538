package invariant

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extBudget gives the set spec.disruptionBudget.
func extBudget(s *v1alpha1.StatefulSet) { s.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{} }

// evictedNow marks the pod as the Eviction API marks the pods it takes.
func evictedNow(p *corev1.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
}

// evictionCases judge RuleQuorumFloor and RuleSwitchoverEvict on
// evictions someone else asked for (recorded as ExternalDelete, as a
// drain's are); TestExtendedRules runs them.
var evictionCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "a drain evicts one member of three while the other two are Available",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true), extBudget)
		h.external("web-1-a")
		return h.add(20, modified, mkPod(1, "a", ready, role("follower"), evictedNow, terminating))
	},
}, {
	name: "a drain evicts a second member while the first is gone: quorum-floor",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true), extBudget)
		h.external("web-1-a")
		h.external("web-0-a")
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), evictedNow, terminating))
	},
	want: []Rule{RuleQuorumFloor},
}, {
	name: "a drain evicts a member while another is Ready without its role again: quorum-floor",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true), extBudget)
		h.external("web-0-a")
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		h.add(21, added, mkPod(1, "b", ready, rev("web-r2")))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), evictedNow, terminating))
	},
	want: []Rule{RuleQuorumFloor},
}, {
	name: "without spec.disruptionBudget an outside eviction is the user's budgets' business",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true))
		h.external("web-1-a")
		h.external("web-0-a")
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), evictedNow, terminating))
	},
}, {
	name: "a kill that is no eviction is counted down, not judged",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true), extBudget)
		h.external("web-1-a")
		h.external("web-0-a")
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), terminating))
	},
}, {
	name: "a drain evicts the leader while its switchover is under way: switchover-evict",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookHalt), extBudget)
		h.external("web-2-a")
		h.add(5, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader"), evictedNow, terminating))
	},
	want: []Rule{RuleSwitchoverEvict},
}, {
	name: "under failurePolicy Proceed a drain evicts the leader before its switchover's timeout: switchover-evict",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookProceed), extBudget,
			func(s *v1alpha1.StatefulSet) { s.Spec.Lifecycle.Switchover.TimeoutSeconds = 30 })
		h.external("web-2-a")
		h.add(5, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader"), evictedNow, terminating))
	},
	want: []Rule{RuleSwitchoverEvict},
}, {
	name: "under failurePolicy Proceed the leader goes once its switchover timed out",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookProceed), extBudget)
		h.external("web-2-a")
		h.add(5, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader"), evictedNow, terminating))
	},
}, {
	name: "a drain evicts the old leader once its role has moved",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookHalt), extBudget)
		h.external("web-2-a")
		h.add(10, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		h.add(11, modified, mkPod(0, "a", ready, role("leader")))
		h.add(12, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookDone, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookDone, "leader"), evictedNow, terminating))
	},
}}
