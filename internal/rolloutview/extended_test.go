package rolloutview

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// extendedOf is set as an extended set (the same JSON under the other
// apiVersion), changed by change, with its apps/v1 view.
func extendedOf(t *testing.T, set *appsv1.StatefulSet, change ...func(*v1alpha1.StatefulSet)) (*appsv1.StatefulSet, *v1alpha1.StatefulSet) {
	t.Helper()
	data, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	ext := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, ext); err != nil {
		t.Fatal(err)
	}
	ext.APIVersion, ext.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
	ext.Status.LabelSelector = "app=web"
	for _, c := range change {
		c(ext)
	}
	return osts.View(ext), ext
}

func rollingUpdate(s *v1alpha1.StatefulSet) *v1alpha1.RollingUpdateStatefulSetStrategy {
	if s.Spec.UpdateStrategy.RollingUpdate == nil {
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{}
	}
	return s.Spec.UpdateStrategy.RollingUpdate
}

func paused(s *v1alpha1.StatefulSet) { rollingUpdate(s).Paused = true }

func onFailure(p v1alpha1.FailurePolicy) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { rollingUpdate(s).OnFailure = p }
}

func selfHealingOff(s *v1alpha1.StatefulSet) {
	rollingUpdate(s).SelfHealing = v1alpha1.SelfHealingDisabled
}

func deadline(seconds int32) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.ProgressDeadlineSeconds = ptr.To(seconds) }
}

// progressing sets the Progressing condition, and the others healthy.
func progressing(status metav1.ConditionStatus, reason, message string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		at := metav1.NewTime(testgen.Epoch)
		s.Status.Conditions = []metav1.Condition{
			{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "2 of 3 pods are available", LastTransitionTime: at},
			{Type: v1alpha1.ConditionProgressing, Status: status, Reason: reason, Message: message, LastTransitionTime: at},
			{Type: v1alpha1.ConditionReplicaFailure, Status: metav1.ConditionFalse, Reason: "NoPodFailure", Message: "no pod is failing", LastTransitionTime: at},
		}
	}
}

func blockedBy(pod, rev, reason, message string, permanent bool) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		s.Status.BlockedBy = append(s.Status.BlockedBy, v1alpha1.BlockedPod{Pod: pod, Revision: rev, Reason: reason,
			Message: message, Permanent: permanent, Since: metav1.NewTime(testgen.Epoch)})
	}
}

func lastCompleted(rev string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Status.LastCompletedRevision = rev }
}

func lastProgress(at time.Time) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Status.LastProgressTime = ptr.To(metav1.NewTime(at)) }
}

// held records the failure policy's hold of failed, running revision,
// decided at the epoch, and its condition.
func held(action v1alpha1.HoldAction, failed, revision string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		at := metav1.NewTime(testgen.Epoch)
		s.Status.Hold = &v1alpha1.RolloutHold{ID: failed + "@2026-01-01T00:00:00.5Z", Action: action, FailedRevision: failed, Revision: revision,
			Reason: "web-2 at revision " + failed + ": CrashLoopBackOff", Time: at}
		s.Status.Conditions = append(s.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionHeld, Status: metav1.ConditionTrue,
			Reason: string(action), Message: "the rollout of revision " + failed + " failed", LastTransitionTime: at})
	}
}

// backAt makes the status say every pod runs rev, Ready.
func backAt(rev string) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		s.Status.CurrentRevision, s.Status.UpdateRevision = rev, rev
		s.Status.ReadyReplicas, s.Status.CurrentReplicas, s.Status.UpdatedReplicas, s.Status.AvailableReplicas = 3, 3, 3, 3
	}
}

func TestRenderExtendedStatus(t *testing.T) {
	r := newRollout()
	old, upd := r.oldRev.Name, r.newRev.Name
	tests := []struct {
		name, golden string
		change       []func(*v1alpha1.StatefulSet)
		pods         []*corev1.Pod
		done, failed bool
	}{
		{name: "a rollout midway shows its conditions and waits", golden: "status-extended-midway.txt",
			change: []func(*v1alpha1.StatefulSet){progressing(metav1.ConditionTrue, "RolloutProgressing", "0 of 3 pods at revision "+upd+" are available")},
			pods:   r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "a passed deadline is a failed rollout, with the pod that blocks it", golden: "status-extended-deadline.txt", failed: true,
			change: []func(*v1alpha1.StatefulSet){progressing(metav1.ConditionFalse, "ProgressDeadlineExceeded", "no progress for 10m0s (progressDeadlineSeconds 600)"),
				blockedBy("web-2", upd, "NeverReady", "Running and not Ready for 10m0s", false)},
			pods: r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "an automatic rollback under way is a failed rollout", golden: "status-extended-rollingback.txt", failed: true,
			change: []func(*v1alpha1.StatefulSet){progressing(metav1.ConditionTrue, "RollingBack", "rolling back from "+upd+" to "+old+": web-2 crash-loops")},
			pods:   r.pods(crashLooping)},
		{name: "a held rollback is a failed rollout that says what runs and how to go on", golden: "status-extended-held.txt", failed: true,
			change: []func(*v1alpha1.StatefulSet){onFailure(v1alpha1.FailureRollback), backAt(old),
				progressing(metav1.ConditionTrue, "RolloutComplete", "revision "+old+" is rolled out"), held(v1alpha1.HoldRolledBack, upd, old)},
			pods: []*corev1.Pod{testgen.Pod(r.set, 0, testgen.At(r.oldRev)), testgen.Pod(r.set, 1, testgen.At(r.oldRev)), testgen.Pod(r.set, 2, testgen.At(r.oldRev))}},
		{name: "a paused set is done where it stands", golden: "status-extended-paused.txt", done: true,
			change: []func(*v1alpha1.StatefulSet){paused, progressing(metav1.ConditionUnknown, "RolloutPaused", "the rollout of revision "+upd+" is paused"),
				func(s *v1alpha1.StatefulSet) { s.Status.ReadyReplicas = 3 }},
			pods: r.pods()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view, ext := extendedOf(t, r.set, tt.change...)
			snap := NewExtendedSnapshot(view, ext, nil, tt.pods, nil, "")
			var b strings.Builder
			RenderStatus(&b, snap)
			golden.Check(t, tt.golden, b.String())
			if snap.Done != tt.done || snap.Failed != tt.failed {
				t.Errorf("done=%v failed=%v (%q), want done=%v failed=%v", snap.Done, snap.Failed, snap.Failure, tt.done, tt.failed)
			}
		})
	}
}

func TestExtendedVerdict(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*v1alpha1.StatefulSet)
		done    bool
		message string
		err     string
	}{
		{"an unobserved generation waits", func(s *v1alpha1.StatefulSet) { s.Generation = 2 }, false, "Waiting for statefulset spec update to be observed...", ""},
		{"missing ready pods are counted", func(s *v1alpha1.StatefulSet) { s.Status.ReadyReplicas = 1 }, false, "Waiting for 2 pods to be ready...", ""},
		{"updated pods are counted against the partition", func(s *v1alpha1.StatefulSet) {
			s.Status.ReadyReplicas = 3
			rollingUpdate(s).Partition = ptr.To[int32](1)
		}, false, "Waiting for roll out to finish: 1 out of 2 new pods have been updated...", ""},
		{"every pod updated and Ready completes", func(s *v1alpha1.StatefulSet) { s.Status.ReadyReplicas, s.Status.UpdatedReplicas = 3, 3 }, true,
			"roll out complete: 3 new pods have been updated...", ""},
		{"Recreate is followed as a rollout of every pod", func(s *v1alpha1.StatefulSet) {
			s.Status.ReadyReplicas = 3
			s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
		}, false, "Waiting for roll out to finish: 1 out of 3 new pods have been updated...", ""},
		{"OnDelete cannot be followed", func(s *v1alpha1.StatefulSet) {
			s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.OnDeleteStatefulSetStrategyType}
		}, true, "", "rollout status is only available for the RollingUpdate and Recreate strategy types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view, _ := extendedOf(t, newRollout().set, tt.mutate)
			done, msg, errMsg := extendedVerdict(view, false)
			if done != tt.done || msg != tt.message || errMsg != tt.err {
				t.Errorf("got (%v, %q, %q), want (%v, %q, %q)", done, msg, errMsg, tt.done, tt.message, tt.err)
			}
		})
	}
}

func TestRenderExtendedPlan(t *testing.T) {
	now := testgen.Epoch.Add(2 * time.Minute)
	r := newRollout()
	old := r.oldRev.Name
	tests := []struct {
		name, golden string
		set          *appsv1.StatefulSet
		change       []func(*v1alpha1.StatefulSet)
		pods         []*corev1.Pod
	}{
		{name: "self-healing replaces the broken pod the rollback left behind", golden: "plan-extended-selfheal.txt",
			set:    rolledBack(r),
			change: []func(*v1alpha1.StatefulSet){lastCompleted(old), lastProgress(testgen.Epoch.Add(time.Minute))},
			pods:   r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "without self-healing the broken pod holds the rollout as in apps/v1", golden: "plan-extended-noheal.txt",
			set:    rolledBack(r),
			change: []func(*v1alpha1.StatefulSet){selfHealingOff, lastCompleted(old), lastProgress(testgen.Epoch.Add(time.Minute))},
			pods:   r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "a running deadline says when it passes", golden: "plan-extended-deadline.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){lastCompleted(old), lastProgress(testgen.Epoch), onFailure(v1alpha1.FailurePause)},
			pods:   r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "a passed deadline holds the failed revision and rolls back to the last completed one", golden: "plan-extended-rollback.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){lastCompleted(old), lastProgress(testgen.Epoch), deadline(60), onFailure(v1alpha1.FailureRollback)},
			pods:   r.pods(testgen.NotReady(testgen.Epoch))},
		{name: "a held rollback runs the last good revision while the spec keeps the failed one", golden: "plan-extended-held.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){onFailure(v1alpha1.FailureRollback), lastCompleted(old), lastProgress(testgen.Epoch),
				held(v1alpha1.HoldRolledBack, r.newRev.Name, old)},
			pods: r.pods(crashLooping)},
		{name: "a paused rollout holds its pods and its deadline", golden: "plan-extended-paused.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){paused, lastCompleted(old), lastProgress(testgen.Epoch)},
			pods:   r.pods()},
		{name: "priority rules put the primary last in the update order", golden: "plan-extended-priority.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){primaryLast, lastCompleted(old), lastProgress(testgen.Epoch)},
			pods:   primaryAt0(r)},
		{name: "a paused set shows the order it resumes with", golden: "plan-extended-priority-paused.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){primaryLast, paused, lastCompleted(old), lastProgress(testgen.Epoch)},
			pods:   primaryAt0(r)},
		{name: "roles put the primary last, show each pod's role and wait on the switchover", golden: "plan-extended-roles.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){primaryRole, lastCompleted(old), lastProgress(testgen.Epoch)},
			pods:   primaryAt0(r)},
		{name: "a member joining holds the next pod, and an offline member is not waited for", golden: "plan-extended-members.txt", set: r.set,
			change: []func(*v1alpha1.StatefulSet){postCreateAndOffline, lastCompleted(old), lastProgress(testgen.Epoch)},
			pods:   joiningAt2(r)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view, ext := extendedOf(t, tt.set, tt.change...)
			history := revs(r.oldRev, r.newRev)
			res, err := revision.Resolve(view, history)
			if err != nil {
				t.Fatal(err)
			}
			in, obs := osts.Extended(ext), osts.Observe(ext)
			plan := planner.Compute(planner.Input{Set: view, Pods: tt.pods, Current: res.Current, Update: res.Update,
				CollisionCount: res.CollisionCount, Now: now, Extended: in, Observed: obs})
			report := NewPlanReport(view, res, history, plan)
			ExtendPlan(&report, in, obs, plan)
			var b strings.Builder
			RenderPlan(&b, report, now)
			golden.Check(t, tt.golden, b.String())
		})
	}
}

// primaryLast gives role=primary weight -100 and zone=a weight 5.
func primaryLast(s *v1alpha1.StatefulSet) {
	rollingUpdate(s).Priority = []v1alpha1.UpdatePriorityRule{
		{Weight: -100, Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}}},
		{Weight: 5, Selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}}},
	}
}

// primaryRole makes role=primary an exclusive quorum role with a
// switchover handshake, and role=replica a quorum role.
func primaryRole(s *v1alpha1.StatefulSet) {
	s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{
		{Name: "primary", Quorum: true, Exclusive: true},
		{Name: "replica", Quorum: true},
	}}
	s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 300}}
}

// primaryAt0 is r's pods with web-0 labelled role=primary.
func primaryAt0(r rollout) []*corev1.Pod {
	pods := r.pods()
	pods[0].Labels["role"] = "primary"
	return pods
}

// rolledBack is r's set with its template back at the old revision while
// web-2 still runs the new one.
func rolledBack(r rollout) *appsv1.StatefulSet {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	set.Status = r.set.Status
	return set
}

func TestExtendedCellsSkipReservedOrdinals(t *testing.T) {
	r := newRollout()
	pods := append(r.pods(), testgen.Pod(r.set, 3, testgen.At(r.newRev)))
	view, ext := extendedOf(t, r.set)
	reserved := []planner.OrdinalRange{{Low: 2, High: 2}}
	snap := NewExtendedSnapshot(view, ext, reserved, pods[:2], nil, "")
	got := cellOrdinals(snap.Cells)
	if want := []int32{0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("with web-2 reserved and gone, cells are ordinals %v, want %v", got, want)
	}
	if snap.Cells[2].State != StateMissing {
		t.Errorf("web-3 not created yet is %q, want %q", snap.Cells[2].State, StateMissing)
	}
	snap = NewExtendedSnapshot(view, ext, reserved, pods, nil, "")
	if got, want := cellOrdinals(snap.Cells), []int32{0, 1, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("with web-2 reserved and still running, cells are ordinals %v, want %v (the reserved pod after the set's)", got, want)
	}
}

func TestExtendedCellsLeaveOfflineMembersOut(t *testing.T) {
	r := newRollout()
	view, ext := extendedOf(t, r.set, func(s *v1alpha1.StatefulSet) { s.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromInt32(1)} })
	pods := r.pods()
	snap := NewExtendedSnapshot(view, ext, nil, []*corev1.Pod{pods[0], pods[2]}, nil, "")
	if got, want := cellOrdinals(snap.Cells), []int32{0, 2}; !slices.Equal(got, want) {
		t.Errorf("with web-1 offline, cells are ordinals %v, want %v: an offline member is not missing", got, want)
	}
}

func cellOrdinals(cells []Cell) []int32 {
	out := make([]int32, len(cells))
	for i, c := range cells {
		out[i] = c.Ordinal
	}
	return out
}

func TestExtendedCellsShowTheirPodsRoles(t *testing.T) {
	r := newRollout()
	view, ext := extendedOf(t, r.set, primaryRole)
	pods := primaryAt0(r)
	pods[1].Labels["role"] = "replica"
	snap := NewExtendedSnapshot(view, ext, nil, pods, nil, "")
	var got []string
	for _, c := range snap.Cells {
		got = append(got, c.Pod+"="+c.Role)
	}
	if want := []string{"web-0=primary", "web-1=replica", "web-2="}; !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

// postCreateAndOffline gives the set a postCreate handshake and ordinal 1
// offline.
func postCreateAndOffline(s *v1alpha1.StatefulSet) {
	s.Spec.Lifecycle = &v1alpha1.Lifecycle{PostCreate: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 300}}
	s.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
}

// joiningAt2 is web-0 at the old revision and web-2 at the new one,
// created with the controller's readiness gate, its containers Ready and
// its postCreate hook Pending since a minute after the epoch.
func joiningAt2(r rollout) []*corev1.Pod {
	pods := r.pods(testgen.NotReady(testgen.Epoch), func(p *corev1.Pod) {
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue})
		p.Labels[v1alpha1.PostCreateHookLabel] = v1alpha1.HookPending
		p.Annotations = map[string]string{v1alpha1.PostCreateHookLabel: `{"since":"` + testgen.Epoch.Add(time.Minute).UTC().Format(time.RFC3339) + `","revision":"` + r.newRev.Name + `"}`}
	})
	return []*corev1.Pod{pods[0], pods[2]}
}

func TestExtendedCellsNameTheirOverrideGroup(t *testing.T) {
	r := newRollout()
	view, ext := extendedOf(t, r.set, func(s *v1alpha1.StatefulSet) {
		s.Spec.Overrides = []v1alpha1.OrdinalOverride{
			{Name: "big", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)}},
			{Name: "far", Ordinals: []intstr.IntOrString{intstr.FromString("2-9")}},
		}
	})
	snap := NewExtendedSnapshot(view, ext, nil, r.pods(), nil, "")
	var got []string
	for _, c := range snap.Cells {
		got = append(got, c.Pod+"="+c.Group)
	}
	if want := []string{"web-0=big", "web-1=", "web-2=far"}; !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	var b strings.Builder
	renderCells(&b, snap)
	if !strings.Contains(b.String(), "override big") || strings.Count(b.String(), "override") != 2 {
		t.Errorf("rendered cells name the wrong groups:\n%s", b.String())
	}
}
