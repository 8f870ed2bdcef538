package rolloutview

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A set scaled to a million replicas with three pods is three cells, the
// first MaxMissingCells missing ones and a count of the rest; a pod
// outside a gap of missing ordinals keeps its place.
func TestTheStatusOfAHugeSetListsItsPodsAndCountsItsMissingOrdinals(t *testing.T) {
	r := newRollout(testgen.Replicas(1_000_000))
	pods := r.pods()
	pods = append(pods, testgen.Pod(r.set, 500_000, testgen.At(r.newRev)))
	snap := NewSnapshot(r.set, pods, "")
	if got, want := len(snap.Cells), 4+MaxMissingCells; got != want {
		t.Fatalf("%d cells, want %d", got, want)
	}
	if got, want := snap.MoreMissing, int32(1_000_000-4-MaxMissingCells); got != want {
		t.Errorf("%d more missing, want %d", got, want)
	}
	if last := snap.Cells[len(snap.Cells)-1]; last.Ordinal != 500_000 || last.State != StateReady {
		t.Errorf("last cell %+v, want web-500000 Ready", last)
	}
	var b strings.Builder
	RenderStatus(&b, snap)
	if !strings.Contains(b.String(), "  … and 999896 more ordinals without a pod\n") {
		t.Errorf("the view does not count the ordinals it leaves out:\n%s", b.String())
	}
}

// The plan of a Parallel scale-up from three pods to a million lists the
// first MaxListedActions creates, counts the rest, and says the replica
// pass stops at planner.MaxCreates.
func TestThePlanOfAHugeScaleUpListsSomeCreatesAndCountsTheRest(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1_000_000), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	history := revs(rev)
	res, err := revision.Resolve(set, history)
	if err != nil {
		t.Fatal(err)
	}
	pods := []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 1, testgen.At(rev)), testgen.Pod(set, 2, testgen.At(rev))}
	now := testgen.Epoch.Add(time.Hour)
	plan := planner.Compute(planner.Input{Set: set, Pods: pods, Current: res.Current, Update: res.Update, Now: now})
	var b strings.Builder
	RenderPlan(&b, NewPlanReport(set, res, history, plan), now)
	golden.Check(t, "plan-huge.txt", b.String())
}
