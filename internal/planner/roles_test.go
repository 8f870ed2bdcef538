package planner_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// database is a three-role set: one leader (quorum, exclusive, last by
// default), followers (quorum) and learners (not quorum).
func database(opts ...func(*planner.Extended)) *planner.Extended {
	return extended(append([]func(*planner.Extended){func(e *planner.Extended) {
		e.Roles = &planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{
			{Name: "leader", Quorum: true, Exclusive: true, Order: planner.LastRoleOrder},
			{Name: "follower", Quorum: true},
			{Name: "learner"},
		}}
	}}, opts...)...)
}

// noQuorum makes every role of a database a non-quorum one.
func noQuorum(e *planner.Extended) {
	for i := range e.Roles.Roles {
		e.Roles.Roles[i].Quorum = false
	}
}

// policies renders a plan's waits as their policies.
func policies(plan planner.Plan) string {
	var lines []string
	for _, w := range plan.Waits {
		lines = append(lines, w.Pod+": "+w.Policy)
	}
	return strings.Join(lines, "\n")
}

var (
	leader   = testgen.PodLabel("role", "leader")
	follower = testgen.PodLabel("role", "follower")
	learner  = testgen.PodLabel("role", "learner")
)

func switchover(proceed bool) func(*planner.Extended) {
	return func(e *planner.Extended) {
		e.Switchover = &planner.Hook{Name: "switchover", Label: v1alpha1.SwitchoverHookLabel, Timeout: 5 * time.Minute, Proceed: proceed}
	}
}

// switchingAt labels a pod with a switchover started at since for rev,
// moving role.
func switchingAt(state string, since time.Time, rev, role string) testgen.PodOption {
	h := &planner.Hook{Label: v1alpha1.SwitchoverHookLabel}
	return func(pod *corev1.Pod) {
		hookAt(h, state, since, rev, 0, time.Time{})(pod)
		pod.Annotations[h.Label] = strings.Replace(pod.Annotations[h.Label], "}", `,"role":"`+role+`"}`, 1)
	}
}

func TestRolesOrderTheRollingUpdate(t *testing.T) {
	f := rollout(testgen.Replicas(4), testgen.Parallel(), testgen.MaxUnavailable(4))
	runPriority(t, []priorityScenario{{
		name:  "the leader, an exclusive role without updateOrder, goes after every other role",
		f:     f,
		e:     database(noQuorum),
		pods:  []*corev1.Pod{f.pod(0, learner), f.pod(1, follower), f.pod(2, follower), f.pod(3, leader)},
		steps: []string{"rolling update: DeletePod web-2", "rolling update: DeletePod web-1", "rolling update: DeletePod web-0", "rolling update: DeletePod web-3"},
	}, {
		name: "updateOrder puts learners before followers, and priority orders pods of one role",
		f:    f,
		e: database(noQuorum, func(e *planner.Extended) {
			e.Roles.Roles[1].Order, e.Roles.Roles[2].Order = 5, 1
			e.Priority = []planner.PriorityRule{rule(10, "zone", "a")}
		}),
		pods: []*corev1.Pod{f.pod(0, learner), f.pod(1, follower, testgen.PodLabel("zone", "a")), f.pod(2, follower), f.pod(3, leader)},
		// Order: learner web-0 (1), followers (5) with web-1 heavier, leader last.
		steps: []string{"rolling update: DeletePod web-0", "rolling update: DeletePod web-1", "rolling update: DeletePod web-2", "rolling update: DeletePod web-3"},
	}})
}

func TestTheQuorumLimitsDisruptionsWhateverMaxUnavailableSays(t *testing.T) {
	f := rollout(testgen.Replicas(5), testgen.Parallel(), testgen.MaxUnavailable(5))
	runPriority(t, []priorityScenario{{
		name:  "five quorum members, a majority of three: two go at once",
		f:     f,
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, follower), f.pod(1, follower), f.pod(2, follower), f.pod(3, follower), f.pod(4, leader)},
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-2"},
	}, {
		name:  "a learner is no member: four members, a majority of three, one follower and the learner go",
		f:     f,
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, learner), f.pod(1, follower), f.pod(2, follower), f.pod(3, follower), f.pod(4, leader)},
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-0"},
	}, {
		name:  "one of three members down: no other member goes, while learners still update within maxUnavailable",
		f:     f,
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, learner), f.pod(1, learner), f.pod(2, follower, testgen.NotReady(now)), f.pod(3, follower), f.pod(4, leader)},
		steps: []string{"rolling update: DeletePod web-2", "rolling update: DeletePod web-1", "rolling update: DeletePod web-0"},
	}, {
		name:  "a recreated pod that has not taken its role again counts towards the size but not as Available",
		f:     rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3)),
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, follower), f.updated(1), f.pod(2, leader)},
		steps: nil,
	}, {
		name:  "a quorum of three with every member Available lets one go",
		f:     rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3)),
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, follower), f.pod(1, follower), f.pod(2, leader)},
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name:  "a quorum of one is updated, one member at a time",
		f:     rollout(testgen.Replicas(1)),
		e:     database(),
		pods:  []*corev1.Pod{f.pod(0, leader)},
		steps: []string{"rolling update: DeletePod web-0"},
	}})
}

func TestTheQuorumWaitIsExplained(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	plan := f.ext(database(), f.pod(0, follower), f.updated(1, follower, testgen.NotReady(now)), f.pod(2, leader))
	if got := f.summary(plan); got != nil {
		t.Fatalf("steps %v, want none", got)
	}
	waits := policies(plan)
	if !strings.Contains(waits, "quorum of 3 members, a majority is 2 and 2 are Available; web-0 is disrupted only when") {
		t.Errorf("waits do not explain the quorum:\n%s", waits)
	}
}

func TestTheQuorumLimitsRequestedDeletes(t *testing.T) {
	f := steady(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	asked := testgen.PodLabel(v1alpha1.DeleteRequestedLabel, "true")
	plan := f.ext(database(), f.pod(0, follower, asked), f.pod(1, follower, asked), f.pod(2, leader))
	if diff := cmp.Diff([]string{"delete requested: DeletePod web-1"}, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

func TestTwoHoldersOfAnExclusiveRoleAreLeftAlone(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	plan := f.ext(extended(func(e *planner.Extended) {
		e.Roles = &planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{{Name: "leader", Exclusive: true, Order: planner.LastRoleOrder}}}
	}), f.pod(0), f.pod(1, leader), f.pod(2, leader))
	if diff := cmp.Diff([]string{"rolling update: DeletePod web-0"}, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if !slices.Contains(warningReasons(plan), planner.ReasonExclusiveRoleConflict+" StatefulSet/web") {
		t.Errorf("warnings %v, want %s", warningReasons(plan), planner.ReasonExclusiveRoleConflict)
	}
	c := condition(plan.Extended.Status.Conditions, planner.ConditionRoleConflict)
	if c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "role=leader is held by web-1, web-2") {
		t.Errorf("condition %+v", c)
	}
	one := f.ext(database(), f.pod(0), f.pod(1, follower), f.pod(2, leader))
	if c := condition(one.Extended.Status.Conditions, planner.ConditionRoleConflict); c.Status != metav1.ConditionFalse {
		t.Errorf("one holder: condition %+v, want False", c)
	}
	none := f.ext(extended(), f.pod(0))
	for _, c := range none.Extended.Status.Conditions {
		if c.Type == planner.ConditionRoleConflict {
			t.Errorf("a set without roles has condition %+v", c)
		}
	}
}

func TestTheLeaderIsDisruptedOnlyOnceItsSwitchoverIsDone(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	upd := f.upd.Name
	started := now.Add(-time.Minute)
	late := now.Add(-10 * time.Minute)
	shrunk := steady(testgen.Replicas(2))
	runPriority(t, []priorityScenario{{
		name:  "the leader, last, is labelled Pending instead of deleted",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, leader)},
		steps: []string{"rolling update: StartHook web-2"},
	}, {
		name:  "Pending, the role not moved: nothing happens",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, leader, switchingAt(v1alpha1.HookPending, started, upd, "leader"))},
		steps: nil,
	}, {
		name:  "Done, the role not moved: the request was taken, and the hook still waits",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, leader, switchingAt(v1alpha1.HookDone, started, upd, "leader"))},
		steps: nil,
	}, {
		name:  "the role has moved to another Ready pod: the old leader is deleted",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, leader), f.updated(1, follower), f.pod(2, follower, switchingAt(v1alpha1.HookPending, started, upd, "leader"))},
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "the leader let go but no Ready pod holds the role yet: it waits",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, follower, switchingAt(v1alpha1.HookPending, started, upd, "leader"))},
		steps: nil,
	}, {
		name:  "the new leader labelled while the old one still holds it: a handover, not a conflict, and it waits",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, leader), f.updated(1, follower), f.pod(2, leader, switchingAt(v1alpha1.HookPending, started, upd, "leader"))},
		steps: nil,
	}, {
		name:  "timed out under Halt: the leader stays",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, leader, switchingAt(v1alpha1.HookPending, late, upd, "leader"))},
		steps: nil,
	}, {
		name:  "timed out under Proceed: the leader is deleted",
		f:     f,
		e:     database(switchover(true)),
		pods:  []*corev1.Pod{f.updated(0, follower), f.updated(1, follower), f.pod(2, leader, switchingAt(v1alpha1.HookPending, late, upd, "leader"))},
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "a follower needs no switchover",
		f:     f,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{f.pod(0, follower), f.updated(1, follower), f.updated(2, leader)},
		steps: []string{"rolling update: DeletePod web-0"},
	}, {
		name:  "the leader's switchover runs before scale-in deletes it",
		f:     shrunk,
		e:     database(switchover(false)),
		pods:  []*corev1.Pod{shrunk.pod(0, follower), shrunk.pod(1, follower), shrunk.pod(2, leader)},
		steps: []string{"scale down: StartHook web-2"},
	}})
}

func TestASwitchoverThatHaltsBlocksTheRollout(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	plan := f.ext(database(switchover(false)), f.updated(0, follower), f.updated(1, follower),
		f.pod(2, leader, switchingAt(v1alpha1.HookPending, now.Add(-10*time.Minute), f.upd.Name, "leader")))
	if len(plan.Extended.Status.BlockedBy) != 1 || plan.Extended.Status.BlockedBy[0].Reason != "SwitchoverHookTimedOut" || !plan.Extended.Status.BlockedBy[0].Permanent {
		t.Errorf("blockedBy %+v, want web-2 SwitchoverHookTimedOut, permanent", plan.Extended.Status.BlockedBy)
	}
	if !strings.Contains(policies(plan), "role=leader did not move to another Ready pod") {
		t.Errorf("waits %v", policies(plan))
	}
}

func TestAnHTTPSwitchoverCallsWithTheRole(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	e := database(switchover(false))
	e.Switchover.HTTP = &planner.HookEndpoint{URL: "http://db.example/switchover"}
	plan := f.ext(e, f.updated(0, follower), f.pod(1, leader, switchingAt(v1alpha1.HookPending, now.Add(-time.Minute), f.upd.Name, "leader")))
	var calls []planner.Action
	for _, st := range plan.Steps {
		for _, a := range st.Actions {
			if a.Kind == planner.CallHook {
				calls = append(calls, a)
			}
		}
	}
	if len(calls) != 1 || calls[0].Call.Request.Hook != "switchover" || calls[0].Call.Request.Role != "leader" {
		t.Fatalf("calls %+v, want one switchover call for role leader", calls)
	}
}

func TestTheOrderShowsRoles(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	plan := f.ext(database(), f.pod(0, leader), f.pod(1, follower))
	var got []string
	for _, o := range plan.Extended.Order {
		got = append(got, o.Pod+"="+o.Role)
	}
	if diff := cmp.Diff([]string{"web-1=follower", "web-0=leader"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// The controller plans from trimmed pods: a switchover under way must
// plan the same from them (its annotation kept), or it would start again
// on every sync and never time out.
func TestASwitchoverPlansTheSameFromATrimmedPod(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	leaderPod := f.pod(1, leader, switchingAt(v1alpha1.HookPending, now.Add(-time.Minute), f.upd.Name, "leader"))
	whole := f.ext(database(switchover(false)), f.updated(0, follower), leaderPod)
	trimmed := f.ext(database(switchover(false)), planner.TrimPod(f.updated(0, follower)), planner.TrimPod(leaderPod))
	if diff := cmp.Diff(f.summary(whole), f.summary(trimmed)); diff != "" {
		t.Errorf("steps (-whole +trimmed):\n%s", diff)
	}
	if diff := cmp.Diff(whole.Extended.Status.BlockedBy, trimmed.Extended.Status.BlockedBy); diff != "" {
		t.Errorf("blockedBy (-whole +trimmed):\n%s", diff)
	}
}

// An update in place takes a member out of service as a delete does: the
// quorum limits it too, and a member out of service counts as gone.
func TestTheQuorumLimitsUpdatesInPlace(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	e := database(func(e *planner.Extended) {
		e.PodUpdate, e.ResizeTimeout = v1alpha1.PodUpdateInPlaceIfPossible, 2*time.Minute
	})
	open := gate(corev1.ConditionTrue, testgen.Epoch)
	runPriority(t, []priorityScenario{{
		name:  "one follower's gate goes False, whatever maxUnavailable says",
		f:     f,
		e:     e,
		pods:  []*corev1.Pod{f.pod(0, open, follower), f.pod(1, open, follower), f.pod(2, open, leader)},
		steps: []string{"rolling update: PatchPodStatus web-1"},
	}, {
		name:  "while it is out of service, no other member is taken",
		f:     f,
		e:     e,
		pods:  []*corev1.Pod{f.pod(0, open, follower), f.pod(1, gate(corev1.ConditionFalse, now), follower), f.pod(2, open, leader)},
		steps: nil,
	}})
}
