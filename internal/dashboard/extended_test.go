package dashboard

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// extendedWeb is testgen's web set as the extended kind, its rollout
// complete, with pause set as given.
func extendedWeb(t *testing.T, pause bool) (*v1alpha1.StatefulSet, []*corev1.Pod) {
	t.Helper()
	apps := testgen.StatefulSet("web", testgen.Replicas(2))
	rev := testgen.RevisionOf(apps, 1)
	data, err := json.Marshal(apps)
	if err != nil {
		t.Fatal(err)
	}
	set := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, set); err != nil {
		t.Fatal(err)
	}
	set.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{Paused: pause}
	set.Status = v1alpha1.StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		UpdatedReplicas: 2, CurrentReplicas: 2, CurrentRevision: rev.Name, UpdateRevision: rev.Name}
	return set, []*corev1.Pod{testgen.Pod(apps, 0, testgen.At(rev)), testgen.Pod(apps, 1, testgen.At(rev))}
}

func TestAnExtendedSetsPauseAndHoldDecideItsHealthAndActions(t *testing.T) {
	tests := []struct {
		name    string
		paused  bool
		hold    *v1alpha1.RolloutHold
		health  string
		actions ActionSet
	}{
		{"running", false, nil, HealthComplete, ActionSet{Pause: true, Restart: true, DeletePod: true}},
		{"paused by rollingUpdate.paused", true, nil, HealthPaused, ActionSet{Resume: true, Restart: true, DeletePod: true}},
		{"held by the failure policy: failing, and Resume releases the hold", false,
			&v1alpha1.RolloutHold{ID: "web-b@1", Action: v1alpha1.HoldRolledBack, FailedRevision: "web-b", Revision: "web-a"},
			HealthFailing, ActionSet{Pause: true, Resume: true, Restart: true, DeletePod: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods := extendedWeb(t, tt.paused)
			set.Status.Hold = tt.hold
			k := &ExtendedStatefulSets{}
			view, ok := k.View(set)
			if !ok {
				t.Fatal("the adapter does not take its own kind")
			}
			o := observed{kind: k, obj: set, Observed: setops.Observed{Set: view, Extended: extendedOf(set), Pods: pods}}
			s := snapshot(o)
			if s.Extended == nil || s.Extended.Paused != tt.paused || (s.Extended.Hold != nil) != (tt.hold != nil) {
				t.Fatalf("snapshot's extended state %+v", s.Extended)
			}
			if got := summarize(k.Name(), s); got.Health != tt.health || got.Kind != "statefulsets.apps.ordinal.dev" {
				t.Errorf("health %s of kind %s, want %s", got.Health, got.Kind, tt.health)
			}
			if diff := cmp.Diff(tt.actions, actions(o)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTheExtendedAdapterTakesOnlyItsKind(t *testing.T) {
	k := &ExtendedStatefulSets{}
	if _, ok := k.View(testgen.StatefulSet("web")); ok {
		t.Error("an apps/v1 set passed as the extended kind")
	}
	set, _ := extendedWeb(t, false)
	if v, _ := k.View(set); v.APIVersion != osts.View(set).APIVersion || k.GroupKind() != v1alpha1.Kind.GroupKind() {
		t.Errorf("view type %s, group kind %v", v.APIVersion, k.GroupKind())
	}
}
