package planner_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// TestExtendedPlanInvariants checks, over generated inputs with generated
// extended fields, the promises the extended kind makes on top of apps/v1:
// self-healing never replaces a Ready pod or one at the update revision, a
// paused set replaces nothing for an update, Recreate never runs two
// revisions at once, a rollback never loops, a hold keeps pods off the
// revision it holds and is decided only by a rollout that can fail, a
// reserved or offline
// ordinal never gets a pod, an offline ordinal's claim never gets a pod
// owner, requested deletes stay within maxUnavailable, and the
// rolling update follows the priority rules.
func TestExtendedPlanInvariants(t *testing.T) {
	for seed := range propertyRuns() {
		r := rand.New(rand.NewPCG(seed, 7))
		g := generate(prng{r})
		g.in.Extended = generateExtended(r, g)
		if g.in.Extended.Recreate {
			g.in.Set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: "Recreate"}
		}
		requestDeletes(r, g.in.Pods)
		generatePriority(r, g.in.Extended, g.in.Pods)
		generateHooks(r, g.in.Extended, g.in.Pods, g.f.upd.Name)
		plan := compute(g.in)
		for _, v := range extendedViolations(g.in, plan) {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, g.f.summary(plan))
		}
	}
}

func generateExtended(r *rand.Rand, g generated) *planner.Extended {
	e := extended(func(e *planner.Extended) {
		e.SelfHealing = r.IntN(4) > 0
		e.Paused = r.IntN(5) == 0
		e.Recreate = r.IntN(6) == 0
		e.OnFailure = []v1alpha1.FailurePolicy{v1alpha1.FailureReport, v1alpha1.FailurePause, v1alpha1.FailureRollback}[r.IntN(3)]
		e.Last.LastProgress = now.Add(-time.Duration(r.IntN(20)) * time.Minute)
		e.Last.UpdateRevision = []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]
		e.Last.LastCompletedRevision = []string{"", g.f.cur.Name, g.f.upd.Name}[r.IntN(3)]
		if r.IntN(2) == 0 {
			e.Reserved = generateReserved(r, g)
		}
		if r.IntN(3) == 0 {
			e.Last.Rollback = &planner.RollbackRecord{From: g.f.cur.Name, To: []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]}
		}
		if r.IntN(4) == 0 {
			e.Offline = generateReserved(r, g)
		}
		if r.IntN(3) == 0 {
			e.Last.Hold = &planner.Hold{ID: "hold-1", Action: []v1alpha1.HoldAction{v1alpha1.HoldRolledBack, v1alpha1.HoldPaused}[r.IntN(2)],
				FailedRevision: []string{g.f.upd.Name, "web-other"}[r.IntN(2)], Revision: []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]}
			e.ReleaseHold = []string{"", "hold-0", "hold-1"}[r.IntN(3)]
		}
	})
	return e
}

// heldTarget is the revision a set whose template maps to in.Update rolls
// to, and whether its rollout is paused, by the rule of
// v1alpha1.RolloutHold: a hold of the spec's revision that no release
// names, under a policy that holds, runs the hold's revision, and a
// Paused one pauses.
func heldTarget(in planner.Input) (target string, paused, held bool) {
	e, update := in.Extended, in.Update.Name
	h := e.Last.Hold
	if h == nil || h.FailedRevision != update || e.ReleaseHold == h.ID || e.OnFailure == v1alpha1.FailureReport {
		return update, e.Paused, false
	}
	return h.Revision, e.Paused || h.Action == v1alpha1.HoldPaused, true
}

// generateReserved reserves up to three ordinals or ranges among those the
// generated pods use.
func generateReserved(r *rand.Rand, g generated) []planner.OrdinalRange {
	top := planner.StartOrdinal(g.in.Set) + planner.Replicas(g.in.Set) + 3
	var out []planner.OrdinalRange
	for range r.IntN(4) {
		low := int32(r.IntN(int(top)))
		out = append(out, planner.OrdinalRange{Low: low, High: low + int32(r.IntN(3))})
	}
	return out
}

func extendedViolations(in planner.Input, plan planner.Plan) []string {
	observed := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		observed[p.Name] = p
	}
	oldExists := oldRevisionExists(in)
	var out []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if v := actionViolation(in, step.Name, a, observed[podName(a)], oldExists); v != "" {
				out = append(out, v)
			}
		}
	}
	if v := holdViolation(in, plan.Extended); v != "" {
		out = append(out, v)
	}
	if v := requestedViolation(in, plan); v != "" {
		out = append(out, v)
	}
	if v := priorityViolation(in, plan); v != "" {
		out = append(out, v)
	}
	out = append(out, hookViolations(in, plan)...)
	return out
}

// generateHooks gives one set in three a preDelete handshake that halts,
// and the pods random states of it.
func generateHooks(r *rand.Rand, e *planner.Extended, pods []*corev1.Pod, update string) {
	if r.IntN(3) > 0 {
		return
	}
	e.PreDelete = handshake("preDelete", false)
	states := []string{"", v1alpha1.HookPending, v1alpha1.HookDone, v1alpha1.HookFailed}
	for i, p := range pods {
		if st := states[r.IntN(len(states))]; st != "" {
			rev := []string{update, "web-older"}[r.IntN(2)]
			since := now.Add(-time.Duration(r.IntN(10)) * time.Minute)
			p = p.DeepCopy()
			hookAt(e.PreDelete, st, since, rev, 0, time.Time{})(p)
			pods[i] = p
		}
	}
}

// hookViolations checks that a halting preDelete hook is never passed:
// every running pod the plan deletes is labelled Done for the update
// revision.
func hookViolations(in planner.Input, plan planner.Plan) []string {
	h := in.Extended.PreDelete
	if h == nil || h.Proceed {
		return nil
	}
	var out []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind != planner.DeletePod || a.Pod.DeletionTimestamp != nil || a.Pod.Status.Phase == corev1.PodFailed || a.Pod.Status.Phase == corev1.PodSucceeded || a.Pod.Status.Phase == "" {
				continue
			}
			var rec v1alpha1.HookRecord
			_ = json.Unmarshal([]byte(a.Pod.Annotations[h.Label]), &rec)
			if target, _, _ := heldTarget(in); a.Pod.Labels[h.Label] != v1alpha1.HookDone || rec.Revision != target {
				out = append(out, fmt.Sprintf("%s: %s deleted with %s=%q for revision %q", step.Name, a.Pod.Name, h.Label, a.Pod.Labels[h.Label], rec.Revision))
			}
		}
	}
	return out
}

// requestDeletes labels about one pod in five for deletion.
func requestDeletes(r *rand.Rand, pods []*corev1.Pod) {
	for i, p := range pods {
		if r.IntN(5) == 0 {
			p = p.DeepCopy()
			p.Labels[v1alpha1.DeleteRequestedLabel] = "true"
			pods[i] = p
		}
	}
}

// requestedViolation checks the requested deletes: only labelled pods,
// and available ones no more than maxUnavailable allows beside the pods
// already unavailable (pods not created yet count as unavailable, and so
// do pods whose readiness gate is False: out of service for an update in
// place, whether or not their Ready condition has caught up).
func requestedViolation(in planner.Input, plan planner.Plan) string {
	set := in.Set
	byName := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		byName[p.Name] = p
	}
	ordinals := wantedOrdinals(in)
	unavailable := 0
	for _, ord := range ordinals {
		p := byName[planner.PodName(set.Name, ord)]
		if p == nil || !availableNow(in, p) {
			unavailable++
		}
	}
	budget := 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		n, _ := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, int(planner.Replicas(set)), false)
		budget = max(n, 1)
	}
	spent := 0
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if step.Name != planner.StepDeleteRequested {
				continue
			}
			if a.Pod.Labels[v1alpha1.DeleteRequestedLabel] != "true" {
				return "a requested delete of unlabelled pod " + a.Pod.Name
			}
			if availableNow(in, a.Pod) {
				spent++
			}
		}
	}
	if spent > 0 && unavailable+spent > budget {
		return fmt.Sprintf("%d available pods deleted on request with %d unavailable and maxUnavailable %d", spent, unavailable, budget)
	}
	return ""
}

// oldRevisionExists says whether a started pod of the set runs another
// revision than the one it rolls to.
func oldRevisionExists(in planner.Input) bool {
	target, _, _ := heldTarget(in)
	for _, p := range in.Pods {
		if _, ok := planner.ParseOrdinal(in.Set.Name, p.Name); ok && p.Status.Phase != "" && p.Labels[appsv1.StatefulSetRevisionLabel] != target {
			return true
		}
	}
	return false
}

// actionViolation returns the promise one action of a step breaks, if
// any; p is the observed pod the action acts on.
func actionViolation(in planner.Input, step string, a planner.Action, p *corev1.Pod, oldExists bool) string {
	e := in.Extended
	update, paused, held := heldTarget(in)
	finished := p != nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded)
	replicaDelete := a.Kind == planner.DeletePod && step == planner.StepReplicas && !finished
	switch {
	case replicaDelete && p != nil && planner.IsRunningAndReady(p):
		return "the replica pass deletes a Ready pod " + p.Name
	case replicaDelete && p != nil && p.Labels[appsv1.StatefulSetRevisionLabel] == update:
		return "self-healing deletes a pod at the update revision " + p.Name
	case held && update != in.Update.Name && a.Kind == planner.CreatePod && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] == in.Update.Name:
		return fmt.Sprintf("%s is created at %s, a revision held for %s", a.Pod.Name, in.Update.Name, update)
	case paused && (replicaDelete || a.Kind == planner.DeletePod && step == planner.StepRollingUpdate):
		return fmt.Sprintf("a paused set deletes %s for an update (%s)", a.Pod.Name, step)
	case a.Kind == planner.CreatePod && e.Recreate && !paused && oldExists && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] == update:
		return "Recreate creates " + a.Pod.Name + " at the update revision while an old-revision pod exists"
	}
	return ordinalViolation(e, a)
}

// ordinalViolation returns the promise an action breaks at a reserved or
// offline ordinal, if any.
func ordinalViolation(e *planner.Extended, a planner.Action) string {
	switch {
	case a.Kind == planner.CreatePod && planner.Reserved(e.Reserved, a.Ordinal):
		return fmt.Sprintf("%s is created at reserved ordinal %d", a.Pod.Name, a.Ordinal)
	case a.Kind == planner.CreatePod && planner.Reserved(e.Offline, a.Ordinal):
		return fmt.Sprintf("%s is created at offline ordinal %d", a.Pod.Name, a.Ordinal)
	case a.Kind == planner.UpdateClaim && planner.Reserved(e.Offline, a.Ordinal) && podOwned(a.Claim):
		return fmt.Sprintf("claim %s of offline ordinal %d is given a pod owner", a.Claim.Name, a.Ordinal)
	}
	return ""
}

// holdViolation returns the promise a hold the plan records breaks, if
// any: the status keeps the hold in force, or drops one no longer in
// force, or records a new one only as the failure policy may.
func holdViolation(in planner.Input, x *planner.ExtendedPlan) string {
	if x == nil {
		return ""
	}
	e, spec, got := in.Extended, in.Update.Name, x.Status.Hold
	target, paused, held := heldTarget(in)
	switch {
	case got == nil && held:
		return "the hold in force is dropped"
	case got == nil, held && got.ID == e.Last.Hold.ID:
		return ""
	case got.ID == "hold-1":
		return "a hold no longer in force is kept"
	case paused:
		return "a paused set is held again"
	case got.FailedRevision != spec:
		return fmt.Sprintf("a hold of %s, which the spec does not name (%s)", got.FailedRevision, spec)
	case e.OnFailure == v1alpha1.FailureReport:
		return "a hold under onFailure Report"
	case got.Action != v1alpha1.HoldRolledBack:
	case got.Revision == target:
		return "a rollback to the revision the set already rolls to"
	case held:
		return "a rollback while a rollback holds: a loop"
	case e.Last.Rollback != nil && e.Last.Rollback.To == target:
		return "a rollback of a revision a rollback restored: a loop"
	case e.OnFailure != v1alpha1.FailureRollback:
		return "a rollback without onFailure Rollback"
	}
	return ""
}

func podName(a planner.Action) string {
	if a.Pod != nil {
		return a.Pod.Name
	}
	return ""
}

// wantedOrdinals are the ordinals that want a pod: the set's, without the
// reserved and the offline ones.
func wantedOrdinals(in planner.Input) []int32 {
	set := in.Set
	return slices.DeleteFunc(planner.SetOrdinals(planner.StartOrdinal(set), planner.Replicas(set), in.Extended.Reserved),
		func(ord int32) bool { return planner.Reserved(in.Extended.Offline, ord) })
}

func podOwned(c *corev1.PersistentVolumeClaim) bool {
	return slices.ContainsFunc(c.OwnerReferences, func(r metav1.OwnerReference) bool { return r.Kind == "Pod" })
}
