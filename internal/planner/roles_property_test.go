package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// TestRolePlanInvariants checks, over generated inputs with generated
// roles, what roles promise: the plan never deletes Available quorum
// members below a majority of the quorum (one at a time, with every
// member Available, for a quorum of one or two), never deletes one of two
// holders of an exclusive role, and, under a switchover that halts, never
// deletes a running holder of an exclusive role.
func TestRolePlanInvariants(t *testing.T) {
	for seed := range propertyRuns() {
		r := rand.New(rand.NewPCG(seed, 11))
		g := generate(prng{r})
		g.in.Extended = generateExtended(r, g)
		if g.in.Extended.Recreate {
			g.in.Set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: "Recreate"}
		}
		requestDeletes(r, g.in.Pods)
		generateRoles(r, g.in.Extended, g.in.Pods, g.f.upd.Name)
		plan := compute(g.in)
		for _, v := range roleViolations(g.in, plan) {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, g.f.summary(plan))
		}
	}
}

// generateRoles gives the set leader, follower and learner roles (quorum
// roles in two sets of three), a switchover that halts in half, and the
// pods random role labels and switchover states.
func generateRoles(r *rand.Rand, e *planner.Extended, pods []*corev1.Pod, update string) {
	quorum := r.IntN(3) > 0
	e.Roles = &planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{
		{Name: "leader", Quorum: quorum, Exclusive: true, Order: planner.LastRoleOrder},
		{Name: "follower", Quorum: quorum, Order: int32(r.IntN(2))},
		{Name: "learner", Order: int32(r.IntN(2))},
	}}
	if r.IntN(2) == 0 {
		switchover(false)(e)
	}
	roles := []string{"", "leader", "follower", "follower", "learner", "other"}
	for i, p := range pods {
		p = p.DeepCopy()
		if role := roles[r.IntN(len(roles))]; role != "" {
			p.Labels["role"] = role
		}
		if e.Switchover != nil && r.IntN(3) == 0 {
			state := []string{v1alpha1.HookPending, v1alpha1.HookDone, v1alpha1.HookFailed}[r.IntN(3)]
			since := now.Add(-time.Duration(r.IntN(10)) * time.Minute)
			switchingAt(state, since, []string{update, "web-older"}[r.IntN(2)], "leader")(p)
		}
		pods[i] = p
	}
}

// disruptive reports whether a is a deletion of a running pod that is not
// on its way out: what roles guard.
func disruptive(a planner.Action) bool {
	p := a.Pod
	return a.Kind == planner.DeletePod && p.DeletionTimestamp == nil && p.Status.Phase != "" &&
		p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded
}

func roleViolations(in planner.Input, plan planner.Plan) []string {
	var out []string
	holders := map[string]int{}
	for _, p := range in.Pods {
		if ord, ok := planner.ParseOrdinal(in.Set.Name, p.Name); !ok || planner.PodName(in.Set.Name, ord) != p.Name {
			continue // the planner ignores it, or may
		}
		if p.Labels["role"] == "leader" && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			if _, switching := p.Labels[v1alpha1.SwitchoverHookLabel]; !switching || in.Extended.Switchover == nil {
				holders["leader"]++
			}
		}
	}
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if !disruptive(a) || a.Pod.Labels["role"] != "leader" {
				continue
			}
			_, switching := a.Pod.Labels[v1alpha1.SwitchoverHookLabel]
			if holders["leader"] > 1 && (!switching || in.Extended.Switchover == nil) {
				out = append(out, fmt.Sprintf("%s: %s deleted while %d pods hold the exclusive role", step.Name, a.Pod.Name, holders["leader"]))
			}
			if h := in.Extended.Switchover; h != nil && !h.Proceed {
				out = append(out, fmt.Sprintf("%s: %s deleted while it holds the exclusive role, under a switchover that halts", step.Name, a.Pod.Name))
			}
		}
	}
	return append(out, quorumViolation(in, plan)...)
}

// quorumViolation counts the quorum as roles.md defines it and checks
// the Available members the plan deletes for an update or on request.
func quorumViolation(in planner.Input, plan planner.Plan) []string {
	if !in.Extended.Roles.Roles[0].Quorum || in.Extended.Recreate {
		return nil
	}
	set := in.Set
	ordinals := planner.SetOrdinals(planner.StartOrdinal(set), planner.Replicas(set), in.Extended.Reserved)
	inRange := map[string]bool{}
	for _, ord := range ordinals {
		inRange[planner.PodName(set.Name, ord)] = true
	}
	size, available := len(ordinals), 0
	member := func(p *corev1.Pod) bool { return p.Labels["role"] == "leader" || p.Labels["role"] == "follower" }
	availableMember := func(p *corev1.Pod) bool {
		return member(p) && p.DeletionTimestamp == nil && planner.IsAvailable(p, set.Spec.MinReadySeconds, in.Now)
	}
	for _, p := range in.Pods {
		switch {
		case !inRange[p.Name]:
		case p.Labels["role"] == "learner":
			size--
		case availableMember(p):
			available++
		}
	}
	taken := 0
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if (step.Name == planner.StepRollingUpdate || step.Name == planner.StepDeleteRequested) && disruptive(a) && inRange[a.Pod.Name] && availableMember(a.Pod) {
				taken++
			}
		}
	}
	left := available - size/2 - 1
	if available == size {
		left = max(left, 1)
	}
	if taken > max(left, 0) {
		return []string{fmt.Sprintf("%d Available quorum members deleted of %d Available in a quorum of %d (majority %d)", taken, available, size, size/2+1)}
	}
	return nil
}
