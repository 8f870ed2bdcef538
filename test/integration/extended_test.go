package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// asExtended turns an apps/v1 set into the extended kind, as a user
// changes a manifest's apiVersion, and applies the kind's own changes.
func asExtended(t *testing.T, set *appsv1.StatefulSet, change ...func(*v1alpha1.StatefulSet)) *v1alpha1.StatefulSet {
	t.Helper()
	ext := extended(t, set)
	for _, c := range change {
		c(ext)
	}
	return ext
}

func createExtended(t *testing.T, set *v1alpha1.StatefulSet) *v1alpha1.StatefulSet {
	t.Helper()
	created, err := extendedSets(t, set.Namespace).Create(context.Background(), set, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating extended set %s: %v", set.Name, err)
	}
	return created
}

func getExtended(t *testing.T, ns string) *v1alpha1.StatefulSet {
	t.Helper()
	set, err := extendedSets(t, ns).Get(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting extended set: %v", err)
	}
	return set
}

// patchExtended applies a JSON merge patch to the extended set.
func patchExtended(t *testing.T, ns, patch string) {
	t.Helper()
	if _, err := extendedSets(t, ns).Patch(context.Background(), setName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching extended set with %s: %v", patch, err)
	}
}

func waitExtended(t *testing.T, ns string, timeout time.Duration, what string, check func(*v1alpha1.StatefulSet) error) *v1alpha1.StatefulSet {
	t.Helper()
	var got *v1alpha1.StatefulSet
	waitFor(t, timeout, what, func() (bool, error) {
		set, err := extendedSets(t, ns).Get(context.Background(), setName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if err := check(set); err != nil {
			return false, fmt.Errorf("%w; status %+v; pods %s", err, set.Status, describePods(listPods(t, ns)))
		}
		got = set
		return true, nil
	})
	return got
}

// extendedSettled accepts a set whose wanted pods all run the update
// revision, Ready and Available, with its rollout complete.
func extendedSettled(set *v1alpha1.StatefulSet) error {
	st, want := set.Status, *set.Spec.Replicas
	switch {
	case st.ObservedGeneration < set.Generation:
		return fmt.Errorf("generation %d not observed", set.Generation)
	case st.Replicas != want || st.ReadyReplicas != want || st.UpdatedReplicas != want || st.AvailableReplicas != want:
		return fmt.Errorf("want %d replicas ready, available and updated", want)
	case st.CurrentRevision != st.UpdateRevision:
		return fmt.Errorf("currentRevision %s != updateRevision %s", st.CurrentRevision, st.UpdateRevision)
	}
	return nil
}

func condition(set *v1alpha1.StatefulSet, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(set.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// An extended set runs the pods, claims and revisions an apps/v1 set of the
// same manifest would, owned by it, and reports conditions.
func TestAnExtendedSetRunsLikeItsAppsV1Twin(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	apps := webSet(ns, replicas(3), withClaims())
	want := firstRevisionName(t, apps)
	createExtended(t, asExtended(t, apps))
	set := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	if set.Status.UpdateRevision != want {
		t.Errorf("update revision %s, want %s, the apps/v1 set's for the same manifest", set.Status.UpdateRevision, want)
	}
	for _, p := range listPods(t, ns) {
		ref := metav1.GetControllerOf(&p)
		if ref == nil || ref.APIVersion != v1alpha1.SchemeGroupVersion.String() || ref.UID != set.UID || podRev(&p) != want {
			t.Errorf("pod %s: owner %+v, revision %s", p.Name, ref, podRev(&p))
		}
	}
	for typ, status := range map[string]metav1.ConditionStatus{v1alpha1.ConditionAvailable: metav1.ConditionTrue, v1alpha1.ConditionProgressing: metav1.ConditionTrue} {
		if c := condition(set, typ); c.Status != status {
			t.Errorf("condition %s is %q (%s), want %s", typ, c.Status, c.Message, status)
		}
	}
	if set.Status.LabelSelector != "app=nginx" || set.Status.LastCompletedRevision != want {
		t.Errorf("labelSelector %q, lastCompletedRevision %q", set.Status.LabelSelector, set.Status.LastCompletedRevision)
	}
}

// A template whose pods crash-loop, with onFailure Rollback: the rollout
// fails at the first broken pod, the set runs the last completed revision
// again while its spec keeps the broken template (status.hold says so),
// and self-healing replaces the broken pod — no human.
func TestABrokenRolloutRollsItselfBack(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3)), func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{OnFailure: v1alpha1.FailureRollback}
	}))
	good := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	broke := time.Now()
	patchExtended(t, ns, `{"spec":{"template":{"metadata":{"annotations":{"`+behaviorKey+`":"crash-loop"}}}}}`)
	set := waitExtended(t, ns, 2*time.Minute, "the rollback to "+good, func(s *v1alpha1.StatefulSet) error {
		if s.Status.Rollback == nil || s.Status.Rollback.To != good {
			return fmt.Errorf("no rollback to %s recorded", good)
		}
		if h := s.Status.Hold; h == nil || h.Action != v1alpha1.HoldRolledBack || h.Revision != good || h.FailedRevision != s.Status.Rollback.From {
			return fmt.Errorf("hold %+v, want RolledBack of %s running %s", h, s.Status.Rollback.From, good)
		}
		if err := extendedSettled(s); err != nil {
			return err
		}
		if s.Status.UpdateRevision != good {
			return fmt.Errorf("update revision %s, want %s", s.Status.UpdateRevision, good)
		}
		return nil
	})
	t.Logf("from the broken template to all pods Ready at %s again: %s", good, time.Since(broke).Round(100*time.Millisecond))
	if set.Spec.Template.Annotations[behaviorKey] != "crash-loop" {
		t.Errorf("the controller changed the template: annotations %v", set.Spec.Template.Annotations)
	}
	if c := condition(set, v1alpha1.ConditionHeld); c.Status != metav1.ConditionTrue || c.Reason != string(v1alpha1.HoldRolledBack) {
		t.Errorf("condition Held %s/%s, want True/RolledBack", c.Status, c.Reason)
	}
	hasEvent(t, ns, "RolledBack", "rolling back to "+good+": the spec is not changed")
	// Only web-2 ever moved: the rollout stopped at the first broken pod,
	// and self-healing replaced it; web-0 and web-1 kept running.
	var moved []string
	for _, e := range rec.Events(evAdded, evDeleted) {
		if e.Name != "web-2" && e.Type == evDeleted {
			t.Errorf("%s was deleted: %s", e.Name, e)
		}
		if e.Name == "web-2" {
			moved = append(moved, e.String())
		}
	}
	bad := set.Status.Rollback.From
	want := []string{"ADDED web-2@" + good, "DELETED web-2@" + good, "ADDED web-2@" + bad, "DELETED web-2@" + bad, "ADDED web-2@" + good}
	if !slices.Equal(moved, want) {
		t.Errorf("web-2's history %v, want %v", moved, want)
	}
}

// Paused holds the pods where they are: a template change replaces no pod,
// a scale-up still works (the new pod at the current revision), and
// resuming lets the rollout go on.
func TestAPausedExtendedSetHoldsItsPodsAndStillScales(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(2)), func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{Paused: true}
	}))
	rev1 := waitExtended(t, ns, time.Minute, "2 ready replicas", extendedSettled).Status.UpdateRevision
	mark := rec.Mark()
	patchExtended(t, ns, `{"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"nginx","image":"`+imageNew+`"}]}}}}`)
	set := waitExtended(t, ns, time.Minute, "3 ready replicas, none updated", func(s *v1alpha1.StatefulSet) error {
		st := s.Status
		if st.ObservedGeneration < s.Generation || st.ReadyReplicas != 3 || st.UpdatedReplicas != 0 || st.UpdateRevision == rev1 {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	if c := condition(set, v1alpha1.ConditionProgressing); c.Reason != "RolloutPaused" {
		t.Errorf("Progressing reason %q, want RolloutPaused", c.Reason)
	}
	consistently(t, 3*time.Second, "no pod is replaced while paused", func() error {
		for _, e := range rec.Since(mark, evDeleted) {
			return fmt.Errorf("%s deleted while paused", e)
		}
		return nil
	})
	if p, _ := getPod(t, ns, "web-2"); p == nil || podRev(p) != rev1 {
		t.Errorf("the scaled-up web-2 is not at the current revision %s", rev1)
	}
	patchExtended(t, ns, `{"spec":{"updateStrategy":{"rollingUpdate":{"paused":false}}}}`)
	waitExtended(t, ns, time.Minute, "the resumed rollout", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == rev1 {
			return fmt.Errorf("no new revision")
		}
		return extendedSettled(s)
	})
}

// Recreate deletes every old pod and creates the new ones only once all are
// gone: two revisions never run side by side.
func TestRecreateNeverRunsTwoRevisions(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), parallel()), func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
	}))
	rev1 := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	mark := rec.Mark()
	patchExtended(t, ns, `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"`+imageNew+`"}]}}}}`)
	waitExtended(t, ns, time.Minute, "the recreated set", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == rev1 {
			return fmt.Errorf("no new revision")
		}
		return extendedSettled(s)
	})
	// Replaying the pod events: a pod of the new revision is added only
	// when no pod of the old one is left.
	old := 3
	for _, e := range rec.Since(mark, evAdded, evDeleted) {
		switch {
		case e.Type == evDeleted && e.Rev == rev1:
			old--
		case e.Type == evAdded && e.Rev != rev1 && old > 0:
			t.Errorf("%s added while %d pods of %s were left", e, old, rev1)
		}
	}
}

// Upstream #67250 on the extended kind, with the default failure policy
// (Report): a rollout stuck on a pod that never becomes Ready reports it,
// and reverting the template heals by itself, where apps/v1 needs someone
// to delete the stuck pod.
func TestReportingAndSelfHealingOfAStuckRollout(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3)), func(s *v1alpha1.StatefulSet) {
		s.Spec.ProgressDeadlineSeconds = ptr(int32(3))
	}))
	good := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	patchExtended(t, ns, `{"spec":{"template":{"metadata":{"annotations":{"`+behaviorKey+`":"never-ready"}}}}}`)
	// The deadline may pass while the old web-2 is still terminating (it
	// then names web-2 Terminating); the new web-2 never becoming Ready is
	// what the status must come to say, with Progressing still False.
	set := waitExtended(t, ns, time.Minute, "the progress deadline to pass with web-2 NeverReady", func(s *v1alpha1.StatefulSet) error {
		if c := condition(s, v1alpha1.ConditionProgressing); c.Status != metav1.ConditionFalse || c.Reason != "ProgressDeadlineExceeded" {
			return fmt.Errorf("Progressing %s/%s", c.Status, c.Reason)
		}
		if b := s.Status.BlockedBy; len(b) != 1 || b[0].Pod != "web-2" || b[0].Reason != "NeverReady" {
			return fmt.Errorf("blockedBy %+v, want web-2 NeverReady", b)
		}
		return nil
	})
	if (set.Spec.UpdateStrategy.RollingUpdate != nil && set.Spec.UpdateStrategy.RollingUpdate.Paused) || set.Status.Hold != nil {
		t.Errorf("Report paused or held the set: hold %+v", set.Status.Hold)
	}
	// The user reverts the template; web-2, at the broken revision and not
	// Ready, is replaced without anyone deleting it.
	patchExtended(t, ns, `{"spec":{"template":{"metadata":{"annotations":null}}}}`)
	waitExtended(t, ns, time.Minute, "the set healed at "+good, func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision != good {
			return fmt.Errorf("update revision %s", s.Status.UpdateRevision)
		}
		return extendedSettled(s)
	})
}

// kubectl works on the extended kind: wait for a condition, scale through
// the scale subresource.
func TestKubectlWaitAndScaleOnAnExtendedSet(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(2))))
	kubectl(t, ns, "wait", "--for=condition=Available", "osts/web", "--timeout=60s")
	kubectl(t, ns, "scale", "osts/web", "--replicas=4")
	waitExtended(t, ns, time.Minute, "4 ready replicas", extendedSettled)
	out := kubectl(t, ns, "get", "osts", "web")
	if !strings.Contains(out, "RolloutComplete") {
		t.Errorf("kubectl get osts shows no Progressing reason:\n%s", out)
	}
}
