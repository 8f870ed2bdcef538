package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// reloadingSet is configuredSet under apply Reload with a reload
// handshake of the given policy.
func reloadingSet(t *testing.T, ns string, policy v1alpha1.HookFailurePolicy) *v1alpha1.StatefulSet {
	set := configuredSet(t, ns)
	set.Spec.ConfigRevisions.Apply = v1alpha1.ConfigApplyReload
	set.Spec.Lifecycle = &v1alpha1.Lifecycle{Reload: handshakeHook(300, policy)}
	return set
}

// reloadStep is what the handshake's actor saw when a pod's reload hook
// was Pending.
type reloadStep struct {
	pod, label, value string
}

// answerReloads plays the reload hook's actor n times: it waits for one
// pod labelled Pending, checks that no other pod is in a reload, notes
// the pod's revision label and the data of the ConfigMap it mounts, and
// labels it answer; with Done, it waits for the pod to settle: its
// record no longer pending and its label the record's revision.
func answerReloads(t *testing.T, ns string, n int, answer string) []reloadStep {
	t.Helper()
	var steps []reloadStep
	for range n {
		var pod corev1.Pod
		waitFor(t, time.Minute, "a pod whose reload hook is Pending", func() (bool, error) {
			var pending []corev1.Pod
			for _, p := range listPods(t, ns) {
				if p.Labels[v1alpha1.ReloadHookLabel] == v1alpha1.HookPending {
					pending = append(pending, p)
				}
			}
			if len(pending) == 1 {
				pod = pending[0]
			}
			return len(pending) == 1, fmt.Errorf("%d pods Pending", len(pending))
		})
		for _, p := range listPods(t, ns) {
			if rec, ok := configrev.ReloadOf(p.Annotations); p.Name != pod.Name && ok && rec.Pending {
				t.Errorf("%s is in a reload (%+v) while %s's hook is Pending: more than maxUnavailable 1 at once", p.Name, rec, pod.Name)
			}
		}
		cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), mounted(&pod), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s mounts %s: %v", pod.Name, mounted(&pod), err)
		}
		label := pod.Labels[appsv1.StatefulSetRevisionLabel]
		steps = append(steps, reloadStep{pod: pod.Name, label: label, value: cm.Data["v"]})
		labelHook(t, ns, pod.Name, v1alpha1.ReloadHookLabel, answer)
		if answer != v1alpha1.HookDone {
			continue
		}
		waitFor(t, 30*time.Second, pod.Name+" settled", func() (bool, error) {
			for _, p := range listPods(t, ns) {
				rec, ok := configrev.ReloadOf(p.Annotations)
				if p.Name == pod.Name && ok && !rec.Pending && rec.Revision == p.Labels[appsv1.StatefulSetRevisionLabel] {
					return true, nil
				}
			}
			for _, p := range listPods(t, ns) {
				if p.Name == pod.Name {
					return false, fmt.Errorf("not settled: labels %v, annotations %v", p.Labels, p.Annotations)
				}
			}
			return false, fmt.Errorf("not settled: %s is gone", pod.Name)
		})
	}
	return steps
}

// podsReadLive checks that every pod mounts its own live ConfigMap,
// holding value v and naming the copy it holds, and still has uid.
func podsReadLive(t *testing.T, ns, v string, uids map[string]podIdentity) {
	t.Helper()
	for _, p := range listPods(t, ns) {
		if uids != nil && uids[p.Name].uid != p.UID {
			t.Errorf("%s was recreated (uid %s, was %s)", p.Name, p.UID, uids[p.Name].uid)
		}
		want := configrev.LiveName(p.Name, "app")
		cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), mounted(&p), metav1.GetOptions{})
		if err != nil || cm.Name != want {
			t.Errorf("pod %s mounts %q (%v), want its live ConfigMap %s", p.Name, mounted(&p), err, want)
			continue
		}
		if !configrev.IsLiveFor(cm.Labels, setName, p.Name) || cm.Data["v"] != v || cm.Immutable != nil {
			t.Errorf("live ConfigMap %s (labels %v, immutable %v) holds v=%q, want a mutable live ConfigMap with v=%q", cm.Name, cm.Labels, cm.Immutable, cm.Data["v"], v)
		}
		if rec, ok := configrev.ReloadOf(p.Annotations); !ok || rec.Pending || rec.Revision != p.Labels[appsv1.StatefulSetRevisionLabel] {
			t.Errorf("pod %s's reload record %+v (%v) does not settle at its revision %s", p.Name, rec, ok, p.Labels[appsv1.StatefulSetRevisionLabel])
		}
	}
}

// Under apply Reload a ConfigMap edit rolls out without recreating a
// pod: one pod at a time, highest ordinal first, its live ConfigMap gets
// the new data before its reload hook runs, and its revision label moves
// only once the hook is Done; undo reloads the old data the same way.
func TestAConfigMapEditReloadsEachPodInOrderWithoutARestart(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	rec := recordPods(t, ns)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	createExtended(t, reloadingSet(t, ns, v1alpha1.HookHalt))
	first := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	before := identities(t, ns)
	podsReadLive(t, ns, "1", nil)
	planSees(t, ns, first.Status.UpdateRevision)

	mark := rec.Mark()
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "2"})
	steps := answerReloads(t, ns, 3, v1alpha1.HookDone)
	second := waitExtended(t, ns, time.Minute, "the reload complete", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == first.Status.UpdateRevision {
			return fmt.Errorf("no new revision")
		}
		return extendedSettled(s)
	})
	want := []reloadStep{{"web-2", first.Status.UpdateRevision, "2"}, {"web-1", first.Status.UpdateRevision, "2"}, {"web-0", first.Status.UpdateRevision, "2"}}
	if !slices.Equal(steps, want) {
		t.Errorf("reload hooks saw %+v, want %+v: in order, each at its old revision label with the new data", steps, want)
	}
	podsReadLive(t, ns, "2", before)
	if moved := rec.Since(mark, evDeleted, evAdded); len(moved) > 0 {
		t.Errorf("the reload deleted or created pods: %v", moved)
	}
	planSees(t, ns, second.Status.UpdateRevision)
	waitForEvent(t, ns, "ConfigReloaded")

	target, err := setops.LoadExtended(context.Background(), client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := target.Undo(context.Background(), 0); err != nil {
		t.Fatalf("undo: %v", err)
	}
	back := answerReloads(t, ns, 3, v1alpha1.HookDone)
	waitExtended(t, ns, time.Minute, "the undo reloaded", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision != first.Status.UpdateRevision {
			return fmt.Errorf("update revision %s, want %s", s.Status.UpdateRevision, first.Status.UpdateRevision)
		}
		return extendedSettled(s)
	})
	for i, s := range back {
		if s.value != "1" || s.pod != want[i].pod {
			t.Errorf("undo: hook %d saw %+v, want %s with v=1", i, s, want[i].pod)
		}
	}
	podsReadLive(t, ns, "1", before)
	if cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), "app", metav1.GetOptions{}); err != nil || cm.Data["v"] != "2" || len(cm.OwnerReferences) > 0 {
		t.Errorf("the user's ConfigMap was written: %+v (%v)", cm, err)
	}
}

// A reload hook that fails under Halt fails the rollout, and onFailure
// Rollback writes the old data back into the pod's live ConfigMap and
// runs its hook again for the old revision: the set runs its last good
// revision, every pod the one it had.
func TestAFailedReloadRollsTheDataBackInPlace(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	createExtended(t, reloadingSet(t, ns, v1alpha1.HookHalt))
	good := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled).Status.UpdateRevision
	before := identities(t, ns)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "2"})
	failed := answerReloads(t, ns, 1, v1alpha1.HookFailed)
	back := answerReloads(t, ns, 1, v1alpha1.HookDone)
	if failed[0].pod != "web-2" || failed[0].value != "2" || back[0].pod != "web-2" || back[0].value != "1" {
		t.Errorf("hooks saw %+v then %+v; want web-2 with v=2, then web-2 with v=1 after the rollback", failed, back)
	}
	waitExtended(t, ns, time.Minute, "the rollback to "+good, func(s *v1alpha1.StatefulSet) error {
		if s.Status.Rollback == nil || s.Status.Rollback.To != good {
			return fmt.Errorf("no rollback to %s recorded", good)
		}
		if s.Status.UpdateRevision != good {
			return fmt.Errorf("update revision %s, want %s", s.Status.UpdateRevision, good)
		}
		return extendedSettled(s)
	})
	podsReadLive(t, ns, "1", before)
}
