package planner_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// propertyRuns is how many generated inputs a property test checks: 3000,
// or 300 with -short.
func propertyRuns() uint64 {
	if testing.Short() {
		return 300
	}
	return 3000
}

// TestPlanInvariants checks properties every plan must have over many
// generated inputs; a failure prints the seed that reproduces it.
func TestPlanInvariants(t *testing.T) {
	for seed := range propertyRuns() {
		g := generate(prng{rand.New(rand.NewPCG(seed, 42))})
		before := deepCopyInput(g.in)
		plan := compute(g.in)
		for _, v := range violations(g.in, plan) {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, g.f.summary(plan))
		}
		if !reflect.DeepEqual(before, g.in) {
			t.Fatalf("seed %d: Compute() modified its input (-before +after):\n%s", seed, cmp.Diff(before, g.in))
		}
		if again := compute(g.in); !reflect.DeepEqual(plan, again) {
			t.Fatalf("seed %d: Compute() is not deterministic:\n%s", seed, cmp.Diff(plan, again))
		}
	}
}

// violations lists every invariant the plan breaks.
func violations(in planner.Input, plan planner.Plan) []string {
	var out []string
	out = append(out, actionViolations(in, plan)...)
	out = append(out, orderedViolations(in, plan)...)
	out = append(out, statusViolations(plan.Status)...)
	if in.Set.DeletionTimestamp != nil && len(plan.Steps) > 0 {
		out = append(out, "a set being deleted got steps")
	}
	return out
}

// actionViolations: deletes target observed, non-terminating pods once;
// creates target missing in-range ordinals once; no ordinal is both created
// and deleted; claims are only created when missing and only their owner
// references are ever updated; nothing below the partition is deleted by
// the rolling update.
func actionViolations(in planner.Input, plan planner.Plan) []string {
	var out []string
	observed := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		observed[p.Name] = p
	}
	created, deleted := map[int32]bool{}, map[int32]bool{}
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			switch a.Kind {
			case planner.DeletePod:
				p := observed[a.Pod.Name]
				if p == nil || p.UID != a.Pod.UID || p.DeletionTimestamp != nil || deleted[a.Ordinal] {
					out = append(out, "DeletePod of a missing, terminating or already deleted pod "+a.Pod.Name)
				}
				deleted[a.Ordinal] = true
				if step.Name == planner.StepRollingUpdate && int64(a.Ordinal) < int64(start(in.Set))+int64(partitionOf(in.Set)) {
					out = append(out, "rolling update deletes below the partition: "+a.Pod.Name)
				}
			case planner.CreatePod:
				if observed[a.Pod.Name] != nil || created[a.Ordinal] || !inRange(in.Set, a.Ordinal) {
					out = append(out, "CreatePod of an existing, duplicate or out-of-range pod "+a.Pod.Name)
				}
				created[a.Ordinal] = true
			case planner.CreateClaim:
				if in.Claims[a.Claim.Name] != nil {
					out = append(out, "CreateClaim of an existing claim "+a.Claim.Name)
				}
			case planner.UpdateClaim:
				out = append(out, claimUpdateViolations(in, a.Claim)...)
			}
		}
	}
	for ord := range created {
		if deleted[ord] {
			out = append(out, fmt.Sprintf("ordinal %d is both created and deleted", ord))
		}
	}
	return out
}

func claimUpdateViolations(in planner.Input, claim *corev1.PersistentVolumeClaim) []string {
	old := in.Claims[claim.Name]
	if old == nil {
		return []string{"UpdateClaim of a missing claim " + claim.Name}
	}
	same := claim.DeepCopy()
	same.OwnerReferences = old.OwnerReferences
	if !cmp.Equal(old, same) {
		return []string{"UpdateClaim changes more than owner references of " + claim.Name}
	}
	return nil
}

// orderedViolations: OrderedReady creates at most one pod, and only when
// every lower ordinal is healthy; it deletes at most one pod unless
// maxUnavailable allows more rolling deletions.
func orderedViolations(in planner.Input, plan planner.Plan) []string {
	if in.Set.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
		return nil
	}
	var out []string
	creates, deletes, rolling := 0, 0, 0
	for _, step := range plan.Steps {
		if step.Burst {
			out = append(out, "OrderedReady plan has a Burst step "+step.Name)
		}
		for _, a := range step.Actions {
			switch {
			case a.Kind == planner.CreatePod:
				creates++
				out = append(out, lowerOrdinalViolations(in, a.Ordinal)...)
			case a.Kind == planner.DeletePod && step.Name == planner.StepRollingUpdate:
				rolling++
			case a.Kind == planner.DeletePod:
				deletes++
			}
		}
	}
	if creates > 1 || deletes > 1 || (deletes > 0 && rolling > 0) || rolling > maxUnavailableOf(in.Set) {
		out = append(out, fmt.Sprintf("OrderedReady plan with %d creates, %d deletes, %d rolling deletes", creates, deletes, rolling))
	}
	return out
}

func lowerOrdinalViolations(in planner.Input, ord int32) []string {
	healthy := map[int32]bool{}
	for _, p := range in.Pods {
		if n, ok := planner.ParseOrdinal(in.Set.Name, p.Name); ok && p.DeletionTimestamp == nil &&
			planner.IsRunningAndReady(p) && planner.IsAvailable(p, in.Set.Spec.MinReadySeconds, in.Now) {
			healthy[n] = true
		}
	}
	for lower := start(in.Set); lower < ord; lower++ {
		if !healthy[lower] {
			return []string{fmt.Sprintf("web-%d created while web-%d is missing or not healthy", ord, lower)}
		}
	}
	return nil
}

func statusViolations(st appsv1.StatefulSetStatus) []string {
	if st.ReadyReplicas > st.Replicas || st.AvailableReplicas > st.ReadyReplicas ||
		st.CurrentReplicas > st.Replicas || st.UpdatedReplicas > st.Replicas || st.CurrentReplicas < 0 {
		return []string{fmt.Sprintf("inconsistent status %+v", st)}
	}
	return nil
}

func start(set *appsv1.StatefulSet) int32 {
	if set.Spec.Ordinals == nil {
		return 0
	}
	return set.Spec.Ordinals.Start
}

func partitionOf(set *appsv1.StatefulSet) int32 {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return *ru.Partition
	}
	return 0
}

func inRange(set *appsv1.StatefulSet, ord int32) bool {
	return ord >= start(set) && int64(ord) < int64(start(set))+int64(*set.Spec.Replicas)
}

// maxUnavailableOf is an independent oracle for the rolling budget.
func maxUnavailableOf(set *appsv1.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	if ru.MaxUnavailable.Type == intstr.Int {
		return max(ru.MaxUnavailable.IntValue(), 1)
	}
	var pct int
	fmt.Sscanf(ru.MaxUnavailable.StrVal, "%d%%", &pct)
	return max(pct*int(*set.Spec.Replicas)/100, 1)
}

func deepCopyInput(in planner.Input) planner.Input {
	out := in
	out.Set = in.Set.DeepCopy()
	out.Pods = nil
	for _, p := range in.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	out.Claims = map[string]*corev1.PersistentVolumeClaim{}
	for k, c := range in.Claims {
		out.Claims[k] = c.DeepCopy()
	}
	return out
}

// FuzzPlan builds inputs from the fuzzer's bytes and checks that Compute
// never panics and keeps the same invariants as TestPlanInvariants.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 1, 2, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("OrderedReady rolling update with claims and odd pods"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &bytesChooser{data: data}
		g := generate(c)
		if c.intn(3) == 0 {
			// Objects the API server would never return: only require that
			// Compute survives them with a sane status.
			plan := compute(mangle(c, g.in))
			for _, v := range statusViolations(plan.Status) {
				t.Error(v)
			}
			return
		}
		plan := compute(g.in)
		for _, v := range violations(g.in, plan) {
			t.Errorf("%s\nsteps: %v", v, g.f.summary(plan))
		}
	})
}
