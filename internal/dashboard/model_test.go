package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// reserving is a kind that reserves ordinals, as a kind implementing the
// Reserver extension point does.
type reserving struct {
	*StatefulSets
	ordinals []int32
}

func (k reserving) Reserved(any) []int32 { return k.ordinals }

func TestReservedOrdinalsShowAsReservedCells(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	rev := testgen.RevisionOf(set, 1)
	pods := []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 2, testgen.At(rev))}
	tests := []struct {
		name     string
		kind     Kind
		reserved []int32
		want     map[int32]string
	}{
		{"apps/v1 has no reserved cells", &StatefulSets{}, nil,
			map[int32]string{0: rolloutview.StateReady, 1: rolloutview.StateMissing, 2: rolloutview.StateReady}},
		{"a reserved ordinal without a pod is reserved, one outside the range is added", reserving{ordinals: []int32{1, 5}}, nil,
			map[int32]string{0: rolloutview.StateReady, 1: StateReserved, 2: rolloutview.StateReady, 5: StateReserved}},
		{"a reserved ordinal that still has a pod shows the pod", reserving{ordinals: []int32{2}}, nil,
			map[int32]string{0: rolloutview.StateReady, 1: rolloutview.StateMissing, 2: rolloutview.StateReady}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := snapshot(observed{kind: tt.kind, Observed: setops.Observed{Set: set, Pods: pods}})
			got := map[int32]string{}
			for _, c := range s.Cells {
				got[c.Ordinal] = c.State
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cell states (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClaimProgressSaysWhereTheStorageStands(t *testing.T) {
	gi := func(s string) resource.Quantity { return resource.MustParse(s) }
	claim := func(phase corev1.PersistentVolumeClaimPhase, req, capacity string, cond corev1.PersistentVolumeClaimConditionType) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{
			Spec:   corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: gi(req)}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: phase},
		}
		if capacity != "" {
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: gi(capacity)}
		}
		if cond != "" {
			c.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: cond, Status: corev1.ConditionTrue}}
		}
		return c
	}
	tests := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		want  string
	}{
		{"a pending claim waits for a volume", claim(corev1.ClaimPending, "1Gi", "", ""), "waiting for a volume"},
		{"a bound claim at its size is bound", claim(corev1.ClaimBound, "1Gi", "1Gi", ""), "bound"},
		{"a bound claim smaller than requested waits to grow", claim(corev1.ClaimBound, "2Gi", "1Gi", ""), "bound, waiting to grow to 2Gi"},
		{"a resizing claim says so", claim(corev1.ClaimBound, "2Gi", "1Gi", corev1.PersistentVolumeClaimResizing), "resizing the volume"},
		{"a pending file system resize says so", claim(corev1.ClaimBound, "2Gi", "2Gi", corev1.PersistentVolumeClaimFileSystemResizePending), "volume resized, file system resize pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := claimProgress(tt.claim); got != tt.want {
				t.Errorf("claimProgress = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTheTimelineHoldsTheSetsPodsAndClaimsNewestFirst(t *testing.T) {
	set := testgen.StatefulSet("web")
	at := func(s int) metav1.Time { return metav1.NewTime(testgen.Epoch.Add(time.Duration(s) * time.Second)) }
	ev := func(kind, name, reason string, s int) *corev1.Event {
		return &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name}, Reason: reason, LastTimestamp: at(s), Type: "Normal"}
	}
	events := []*corev1.Event{
		ev("StatefulSet", "web", "SuccessfulCreate", 1),
		ev("Pod", "web-0", "Started", 3),
		ev("Pod", "webx-0", "Started", 4),
		ev("Pod", "web-canary", "Started", 5),
		ev("PersistentVolumeClaim", "data-web-0", "Provisioned", 2),
		ev("StatefulSet", "other", "SuccessfulCreate", 6),
	}
	got := timeline(set, "StatefulSet", events, []ClaimRow{{Name: "data-web-0"}})
	var reasons []string
	for _, e := range got {
		reasons = append(reasons, e.Object+" "+e.Reason)
	}
	want := []string{"Pod/web-0 Started", "PersistentVolumeClaim/data-web-0 Provisioned", "StatefulSet/web SuccessfulCreate"}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}

// The page of a set scaled to a million replicas with three pods costs
// its pods: a bounded strip of cells whose missing ones are counted, a
// summary that counts every missing ordinal, and a plan that lists a few
// of its creates.
func TestThePageOfAHugeSetIsBounded(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1_000_000), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	pods := []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 1, testgen.At(rev)), testgen.Pod(set, 2, testgen.At(rev))}
	o := observed{kind: &StatefulSets{}, Observed: setops.Observed{Set: set, Pods: pods, Revisions: []*appsv1.ControllerRevision{rev}}}
	d := detail(o, true, testgen.Epoch.Add(time.Hour))
	if n := len(d.Status.Cells); n != 3+rolloutview.MaxMissingCells {
		t.Errorf("%d cells, want %d", n, 3+rolloutview.MaxMissingCells)
	}
	if got := d.Summary.States[rolloutview.StateMissing]; got != 1_000_000-3 {
		t.Errorf("the summary counts %d missing pods, want %d", got, 1_000_000-3)
	}
	if d.Summary.Health != HealthProgressing {
		t.Errorf("health %s, want %s", d.Summary.Health, HealthProgressing)
	}
	if lines := strings.Count(d.Plan, "\n"); lines > 40 || !strings.Contains(d.Plan, "… and ") {
		t.Errorf("the plan is %d lines and does not count what it leaves out:\n%s", lines, d.Plan)
	}
}
