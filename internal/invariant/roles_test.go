package invariant

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extRoles gives the set spec.roles on the label "role": leader
// (exclusive, and a quorum role when quorum) and follower (quorum when
// quorum).
func extRoles(quorum bool) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{
			{Name: "leader", Quorum: quorum, Exclusive: true}, {Name: "follower", Quorum: quorum}}}
	}
}

// extSwitchover gives the set a switchover handshake with policy.
func extSwitchover(policy v1alpha1.HookFailurePolicy) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 5, FailurePolicy: policy}}
	}
}

func role(v string) podOpt { return func(p *corev1.Pod) { p.Labels["role"] = v } }

// switching labels the pod with a switchover started for role.
func switching(state, role string) podOpt {
	return func(p *corev1.Pod) {
		p.Labels[v1alpha1.SwitchoverHookLabel] = state
		rec, _ := json.Marshal(v1alpha1.HookRecord{Since: t0, Revision: "web-r2", Role: role})
		p.Annotations = map[string]string{v1alpha1.SwitchoverHookLabel: string(rec)}
	}
}

// rolesThree is an extended set of 3 rolling from web-r1 to web-r2, Ready
// pods labelled with roles.
func rolesThree(roles [3]string, opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, append([]extOpt{extRevisions("web-r1", "web-r2"), extParallel, extMaxUnavailable(3)}, opts...)...))
	for ord := int32(0); ord < 3; ord++ {
		h.add(0.1+float64(ord), added, mkPod(ord, "a", ready, role(roles[ord])))
	}
	return h
}

// roleCases judge RuleQuorumDelete and RuleSwitchover; TestExtendedRules
// runs them.
var roleCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "one member of three goes while the other two are Available",
	history: func() *history {
		return rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true)).add(20, modified, mkPod(1, "a", ready, role("follower"), terminating))
	},
}, {
	name: "a second member goes while the first is back but has not taken its role: quorum-delete",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true))
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		h.add(21, added, mkPod(1, "b", ready, rev("web-r2")))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), terminating))
	},
	want: []Rule{RuleQuorumDelete},
}, {
	name: "a second member goes once the first is back with its role",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(true))
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), terminating))
		h.add(21, added, mkPod(1, "b", ready, rev("web-r2"))).add(22, modified, mkPod(1, "b", ready, rev("web-r2"), role("follower")))
		return h.add(40, modified, mkPod(0, "a", ready, role("follower"), terminating))
	},
}, {
	name: "the leader goes while it still leads, under a Halt switchover: switchover",
	history: func() *history {
		return rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookHalt)).
			add(20, modified, mkPod(2, "a", ready, role("leader"), terminating))
	},
	want: []Rule{RuleSwitchover},
}, {
	name: "under Proceed the leader may go while it leads",
	history: func() *history {
		return rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookProceed)).
			add(20, modified, mkPod(2, "a", ready, role("leader"), terminating))
	},
}, {
	name: "the old leader goes once another Ready pod leads",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookHalt))
		h.add(10, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		h.add(11, modified, mkPod(0, "a", ready, role("leader")))
		h.add(12, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookDone, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookDone, "leader"), terminating))
	},
}, {
	name: "the old leader let go but no pod leads, and it goes: switchover",
	history: func() *history {
		h := rolesThree([3]string{"follower", "follower", "leader"}, extRoles(false), extSwitchover(v1alpha1.HookHalt))
		h.add(10, modified, mkPod(2, "a", ready, role("leader"), switching(v1alpha1.HookPending, "leader")))
		h.add(12, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookPending, "leader")))
		return h.add(20, modified, mkPod(2, "a", ready, role("follower"), switching(v1alpha1.HookPending, "leader"), terminating))
	},
	want: []Rule{RuleSwitchover},
}, {
	name: "with roles, a follower goes before a leader of equal weight and higher ordinal",
	history: func() *history {
		return rollingThree(-1, extRoles(true), extParallel).
			add(3.5, modified, mkPod(2, "a", ready, role("leader"))).
			add(3.6, modified, mkPod(1, "a", ready, role("follower"))).
			add(3.7, modified, mkPod(0, "a", ready, role("follower"))).
			add(20, modified, mkPod(1, "a", ready, role("follower"), terminating))
	},
}}
