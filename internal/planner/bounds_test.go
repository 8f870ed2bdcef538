package planner_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// hugeCase is a set scaled far beyond the pods it has: three Ready pods,
// each with its claim, and replicas of a size the test chooses.
type hugeCase struct {
	name     string
	opts     []testgen.SetOption
	extended *planner.Extended
	// creates is the most CreatePod actions one plan may hold.
	creates int
}

func hugeCases() []hugeCase {
	reserved := func(e *planner.Extended) {
		e.Reserved = []planner.OrdinalRange{{Low: 5, High: 9}, {Low: 5000, High: 5999}, {Low: 2_000_000, High: 2_000_100}}
	}
	return []hugeCase{
		{name: "apps/v1 OrderedReady", creates: 1},
		{name: "apps/v1 Parallel", opts: []testgen.SetOption{testgen.Parallel()}, creates: planner.MaxCreates + planner.MaxBatch - 1},
		{name: "extended OrderedReady with reserved ordinals", extended: extended(reserved), creates: 1},
		{name: "extended Parallel with reserved ordinals", opts: []testgen.SetOption{testgen.Parallel()}, extended: extended(reserved),
			creates: planner.MaxCreates + planner.MaxBatch - 1},
	}
}

// input is the case's set at replicas with its three pods.
func (c hugeCase) input(replicas int32) planner.Input {
	f := steady(append([]testgen.SetOption{testgen.Replicas(replicas), testgen.ClaimTemplates("data")}, c.opts...)...)
	var claims []*corev1.PersistentVolumeClaim
	for ord := range int32(3) {
		claims = append(claims, testgen.Claim(f.set, "data", ord))
	}
	in := f.input(f.pods(0, 1, 2), claims...)
	in.Extended = c.extended
	return in
}

// allocated is what one call of f allocates, averaged over runs calls:
// bytes and objects, from the runtime's counters.
func allocated(runs int, f func()) (bytes, objects uint64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs), (after.Mallocs - before.Mallocs) / uint64(runs)
}

func createCount(plan planner.Plan) int {
	n := 0
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if a.Kind == planner.CreatePod {
				n++
			}
		}
	}
	return n
}

// A plan builds pods only for the ordinals its sync acts on, so what it
// costs follows the pods that exist, not spec.replicas: a million replicas
// (the extended kind's maximum, for the extended kind) cost a plan about
// what a thousand do, and the plan creates at most one pod under
// OrderedReady and at most MaxCreates (finishing the slow-start batch it
// is in) under Parallel.
func TestAHugeReplicaCountCostsAPlanWhatASmallOneDoes(t *testing.T) {
	for _, c := range hugeCases() {
		t.Run(c.name, func(t *testing.T) {
			large := int32(1_000_000)
			if c.extended != nil {
				large = v1alpha1.MaxReplicas
			}
			var bytes [2]uint64
			for i, replicas := range []int32{1000, large} {
				in := c.input(replicas)
				plan := compute(in)
				if n := createCount(plan); n == 0 || n > c.creates {
					t.Errorf("replicas %d: %d pods created, want 1 to %d", replicas, n, c.creates)
				}
				if got, want := plan.Status.Replicas, int32(3); got != want {
					t.Errorf("replicas %d: status.replicas %d, want %d", replicas, got, want)
				}
				var objects uint64
				bytes[i], objects = allocated(3, func() { compute(in) })
				t.Logf("replicas %d: %d creates, %d KiB and %d objects allocated per plan", replicas, createCount(plan), bytes[i]>>10, objects)
			}
			if bytes[1] > 2*bytes[0] {
				t.Errorf("a plan at %d replicas allocates %d KiB, more than twice the %d KiB at 1000", large, bytes[1]>>10, bytes[0]>>10)
			}
		})
	}
}

// The Parallel replica pass of a huge set stops after the slow-start
// batch in which it builds its MaxCreates-th pod, like a sync cut short,
// and says so: the later passes wait for a sync that gets through every
// pod, and the set is synced again at once.
func TestAParallelScaleUpBeyondMaxCreatesIsSpreadOverSyncs(t *testing.T) {
	f := steady(testgen.Replicas(5000), testgen.Parallel())
	plan := compute(f.input(nil))
	var batches []int
	for _, s := range plan.Steps {
		if s.Name == planner.StepReplicas {
			batches = s.Batches
		}
	}
	want := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 500}
	if fmt.Sprint(batches) != fmt.Sprint(want) {
		t.Errorf("batches %v, want %v", batches, want)
	}
	if n := createCount(plan); n != 1011 {
		t.Errorf("%d creates, want 1011 (ten batches)", n)
	}
	if !plan.Truncated {
		t.Error("the plan does not say it stopped short")
	}
	t.Run("while a set that needs no more than MaxCreates gets them all in one plan, as upstream", func(t *testing.T) {
		f := steady(testgen.Replicas(planner.MaxCreates), testgen.Parallel())
		plan := compute(f.input(f.pods(0)))
		if n := createCount(plan); n != planner.MaxCreates-1 || plan.Truncated {
			t.Errorf("%d creates (truncated %v), want %d", n, plan.Truncated, planner.MaxCreates-1)
		}
	})
	t.Run("and a set of only existing pods is never cut short, however many", func(t *testing.T) {
		f := steady(testgen.Replicas(3000), testgen.Parallel())
		ords := make([]int32, 3000)
		for i := range ords {
			ords[i] = int32(i)
		}
		pods := f.pods(ords...)
		pods[2999] = f.pod(2999, testgen.Failed())
		plan := compute(f.input(pods))
		if plan.Truncated || len(plan.Steps) != 1 || plan.Steps[0].Actions[0].Kind != planner.DeletePod {
			t.Errorf("want the Failed web-2999 deleted, got %v (truncated %v)", f.summary(plan), plan.Truncated)
		}
	})
}

// A set of thousands of pods whose image cannot be pulled has thousands
// of stuck pods; its status stays writable: blockedBy lists the first
// MaxBlockedBy, and the ReplicaFailure message names MaxFailuresListed and
// counts the rest, well within the 32768 characters a condition message
// may have.
func TestManyStuckPodsKeepTheStatusWritable(t *testing.T) {
	const n = 3000
	f := rollout(testgen.Replicas(n), testgen.Parallel())
	var pods []*corev1.Pod
	for ord := range int32(n) {
		pods = append(pods, f.updated(ord, func(p *corev1.Pod) {
			p.Status.Conditions = nil
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.example/app:2"`}}}}
		}))
	}
	plan := f.ext(extended(), pods...)
	x := plan.Extended.Status
	if len(x.BlockedBy) != planner.MaxBlockedBy || x.BlockedBy[0].Pod != "web-0" {
		t.Errorf("blockedBy has %d pods from %s, want %d from web-0", len(x.BlockedBy), x.BlockedBy[0].Pod, planner.MaxBlockedBy)
	}
	c := condition(x.Conditions, planner.ConditionReplicaFailure)
	if len(c.Message) > 32768 || !strings.HasSuffix(c.Message, fmt.Sprintf("; and %d more pods", n-planner.MaxFailuresListed)) {
		t.Errorf("ReplicaFailure message of %d characters, ending %q", len(c.Message), c.Message[max(0, len(c.Message)-80):])
	}
	if p := condition(x.Conditions, planner.ConditionProgressing); p.Reason != planner.ReasonRolloutFailed {
		t.Errorf("Progressing %s, want %s: the rollout fails on the pods left out of the list too", p.Reason, planner.ReasonRolloutFailed)
	}
}

// An apps/v1 Recreate update of a huge set deletes its old pods in
// slow-start batches counted over every ordinal, as upstream counts them,
// without a pod or a unit per ordinal: its plan costs about what it does
// at a thousand replicas, under either policy, a condemned pod above the
// range included. What grows is the step's list of batches, an int for
// every 500 places up to the condemned pod (16 KiB at a million); a pod
// built per missing ordinal made it 2.4 GiB.
func TestAHugeRecreateCostsAPlanWhatASmallOneDoes(t *testing.T) {
	for _, policy := range []struct {
		name string
		opts []testgen.SetOption
	}{{"OrderedReady", nil}, {"Parallel", []testgen.SetOption{testgen.Parallel()}}} {
		t.Run(policy.name, func(t *testing.T) {
			var bytes [2]uint64
			for i, replicas := range []int32{1000, 1_000_000} {
				f := rollout(append([]testgen.SetOption{testgen.Replicas(replicas), testgen.Recreate()}, policy.opts...)...)
				in := f.input(f.pods(0, 1, 2, replicas+5))
				plan := compute(in)
				want := []string{"recreate*1: DeletePod web-0", "recreate*2: DeletePod web-1", "recreate*2: DeletePod web-2",
					fmt.Sprintf("recreate*%d: DeletePod web-%d", batchOf(int64(replicas)+1), replicas+5)}
				if got := f.summary(plan); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("replicas %d: steps %q, want %q", replicas, got, want)
				}
				var objects uint64
				bytes[i], objects = allocated(3, func() { compute(in) })
				t.Logf("replicas %d: %d KiB and %d objects allocated per plan", replicas, bytes[i]>>10, objects)
			}
			if bytes[1] > 2*bytes[0] {
				t.Errorf("a plan at a million replicas allocates %d KiB, more than twice the %d KiB at 1000", bytes[1]>>10, bytes[0]>>10)
			}
		})
	}
}

// batchOf is the slow-start batch, from 1, of the n-th unit of a Burst
// step, counted one by one: 1, 2, 4, … MaxBatch units a batch.
func batchOf(n int64) int {
	b := 0
	for seen, size := int64(0), int64(1); seen < n; seen, size = seen+size, min(2*size, planner.MaxBatch) {
		b++
	}
	return b
}
