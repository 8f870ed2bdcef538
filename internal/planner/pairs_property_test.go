package planner_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// feature turns one extended feature on for a generated input, with
// random settings.
type feature struct {
	name   string
	enable func(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed)
}

var pairFeatures = []feature{
	{"roles", enableRoles},
	{"topology", enableTopology},
	{"pods in place", func(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
		e.PodUpdate = []v1alpha1.PodUpdatePolicy{v1alpha1.PodUpdateInPlaceIfPossible, v1alpha1.PodUpdateInPlaceOnly}[r.IntN(2)]
		e.ResizeTimeout = 2 * time.Minute
		for _, pod := range g.in.Pods {
			if r.IntN(2) == 0 {
				status := []corev1.ConditionStatus{"", corev1.ConditionTrue, corev1.ConditionFalse}[r.IntN(3)]
				gate(status, now.Add(-time.Duration(r.IntN(60))*time.Second))(pod)
				if status == corev1.ConditionFalse && r.IntN(4) > 0 {
					testgen.NotReady(now)(pod) // the kubelet's answer to a False gate, most often already given
				}
			}
		}
	}},
	{"claims in place", func(r *rand.Rand, _ *generated, e *planner.Extended, o *planner.Observed) {
		e.ClaimUpdate = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		o.StorageClasses, o.DefaultStorageClass = map[string]bool{"standard": r.IntN(2) == 0}, "standard"
	}},
	{"disruption budgets", func(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
		e.Budgets.Respect = true
		o.Refused = map[string]planner.EvictionRefusal{}
		for _, pod := range g.in.Pods {
			if r.IntN(3) == 0 {
				o.Refused[pod.Name] = planner.EvictionRefusal{UID: pod.UID, Message: "budget", Since: now.Add(-time.Minute),
					RetryAt: now.Add(time.Duration(r.IntN(3)-1) * time.Minute)}
			}
		}
	}},
	{"rollout group", func(r *rand.Rand, _ *generated, _ *planner.Extended, o *planner.Observed) {
		o.Group = &planner.GroupTurn{Name: "g", Pending: true, Holding: r.IntN(2) == 0, Wait: "osts/other is updating"}
	}},
	{"count partition", func(_ *rand.Rand, _ *generated, e *planner.Extended, _ *planner.Observed) { e.PartitionCount = true }},
	{"node failure", enableNodeFailure},
	{"failure hold", func(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
		e.OnFailure = []v1alpha1.FailurePolicy{v1alpha1.FailurePause, v1alpha1.FailureRollback}[r.IntN(2)]
		e.Last.Hold = &planner.Hold{ID: "hold-1", Action: []v1alpha1.HoldAction{v1alpha1.HoldRolledBack, v1alpha1.HoldPaused}[r.IntN(2)],
			FailedRevision: g.f.upd.Name, Revision: []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]}
	}},
	{"reserve and offline", func(r *rand.Rand, g *generated, e *planner.Extended, _ *planner.Observed) {
		e.Reserved = generateReserved(r, *g)
		if r.IntN(2) == 0 {
			e.Offline = generateReserved(r, *g)
		}
	}},
	{"priority", func(r *rand.Rand, g *generated, e *planner.Extended, _ *planner.Observed) {
		generatePriority(r, e, g.in.Pods)
	}},
	{"hooks", func(r *rand.Rand, g *generated, e *planner.Extended, _ *planner.Observed) {
		generateHooks(r, e, g.in.Pods, g.f.upd.Name)
	}},
	{"requested deletes", func(r *rand.Rand, g *generated, _ *planner.Extended, _ *planner.Observed) {
		requestDeletes(r, g.in.Pods)
	}},
	{"node drain", enableNodeDrain},
}

var roleLabels = []string{"", "leader", "follower", "follower", "learner"}

func enableRoles(r *rand.Rand, g *generated, e *planner.Extended, _ *planner.Observed) {
	e.Roles = &planner.RoleSpec{LabelKey: "role", Roles: []planner.Role{
		{Name: "leader", Quorum: true, Exclusive: r.IntN(2) == 0, Order: planner.LastRoleOrder},
		{Name: "follower", Quorum: true},
		{Name: "learner", Order: int32(r.IntN(3))},
	}}
	for _, pod := range g.in.Pods {
		if role := roleLabels[r.IntN(len(roleLabels))]; role != "" {
			pod.Labels["role"] = role
		}
	}
}

var pairNodes = []string{"node-a", "node-b", "node-c", "bare", ""}

func enableTopology(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
	e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: 1 + r.IntN(2), Order: []string{"", "c"}[r.IntN(2):]}
	o.Domains = zoneNodes
	placeAll(r, g)
}

// placeAll puts every pod that has no node on a random one (or none).
func placeAll(r *rand.Rand, g *generated) {
	for _, pod := range g.in.Pods {
		if pod.Spec.NodeName == "" {
			pod.Spec.NodeName = pairNodes[r.IntN(len(pairNodes))]
		}
	}
}

func enableNodeFailure(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
	e.NodeFailure = &planner.NodeFailure{Volumes: v1alpha1.KeepNodeFailureVolumes, Replace: true, ReplaceAfter: time.Minute}
	states := []planner.NodeState{{Ready: corev1.ConditionTrue}, {Ready: corev1.ConditionFalse, Since: now.Add(-time.Hour)},
		{Ready: corev1.ConditionUnknown, Since: now.Add(-time.Hour)}, {Ready: corev1.ConditionUnknown, Since: now}}
	facts := &planner.NodeFacts{Nodes: map[string]planner.NodeState{}, ClaimDeletion: planner.PermissionAllowed}
	for _, n := range pairNodes[:3] {
		if r.IntN(5) > 0 { // some nodes are gone
			st := states[r.IntN(len(states))]
			if o.Nodes != nil {
				st.Drain = o.Nodes.Nodes[n].Drain // a drain's marks stay
			}
			facts.Nodes[n] = st
		}
	}
	o.Nodes = facts
	placeAll(r, g)
}

// enableNodeDrain moves the set's pods off drained nodes and cordons
// some of them (keeping what a node failure made of them).
func enableNodeDrain(r *rand.Rand, g *generated, e *planner.Extended, o *planner.Observed) {
	e.MoveOffDrainedNodes = true
	if e.NodeFailure == nil {
		e.NodeFailure = &planner.NodeFailure{}
	}
	if o.Nodes == nil {
		o.Nodes = &planner.NodeFacts{Nodes: map[string]planner.NodeState{}, ClaimHosts: map[string]string{}}
	}
	for _, n := range pairNodes[:3] {
		st, ok := o.Nodes.Nodes[n]
		if !ok {
			st = planner.NodeState{Ready: corev1.ConditionTrue}
		}
		if r.IntN(2) == 0 {
			st.Drain = "cordoned"
		}
		o.Nodes.Nodes[n] = st
	}
	placeAll(r, g)
}

// TestEveryPairOfExtendedFeaturesComposes plans generated sets with every
// pair of extended features on, and judges each plan by the extended
// kind's promises (extendedViolations) and by predicates about the plan
// that each feature states on its own: the quorum keeps a majority
// Available, the rolling update takes pods of one domain within its
// budget, maxUnavailable bounds the pods taken out of service, a refused
// eviction is not asked again before it is due, and a set waiting for its
// group's turn updates no pod.
func TestEveryPairOfExtendedFeaturesComposes(t *testing.T) {
	perPair := 60
	if testing.Short() {
		perPair = 15
	}
	pairs, plans := 0, 0
	acted := map[string]int{} // plans with actions, by step
	for i := range pairFeatures {
		for j := i + 1; j < len(pairFeatures); j++ {
			pairs++
			a, b := pairFeatures[i], pairFeatures[j]
			for n := range perPair {
				seed := uint64(pairs*1000 + n)
				in, f := pairInput(seed, a, b)
				plan := compute(in)
				plans++
				for _, st := range plan.Steps {
					if len(st.Actions) > 0 {
						acted[st.Name]++
					}
				}
				for _, v := range append(extendedViolations(in, plan), pairViolations(in, plan)...) {
					t.Errorf("%s × %s, seed %d: %s\nsteps: %v", a.name, b.name, seed, v, f.summary(plan))
				}
			}
		}
	}
	t.Logf("%d features, %d pairs, %d plans; plans acting by step: %v", len(pairFeatures), pairs, plans, acted)
	for _, step := range []string{planner.StepRollingUpdate, planner.StepDeleteRequested, planner.StepNodeDrain} {
		if acted[step] == 0 {
			t.Errorf("no plan acted in step %q: the generator does not reach it", step)
		}
	}
}

// pairInput generates a set with features a and b on.
func pairInput(seed uint64, a, b feature) (planner.Input, fixture) {
	r := rand.New(rand.NewPCG(seed, 11))
	g := generate(prng{r})
	e := extended(func(e *planner.Extended) { e.Last.LastProgress = now.Add(-time.Minute) })
	o := observedOf(e)
	o.Revisions = []*appsv1.ControllerRevision{g.f.cur, g.f.upd}
	a.enable(r, &g, e, o)
	b.enable(r, &g, e, o)
	g.in.Extended = e
	return g.in, g.f
}

// pairViolations are the predicates each feature states about a plan,
// judged from the input and the plan's actions alone.
func pairViolations(in planner.Input, plan planner.Plan) []string {
	var out []string
	taken := takenOutOfService(in, plan)
	if g := in.Observed.Group; g != nil && g.Pending && !g.Holding {
		for _, s := range plan.Steps {
			if s.Name == planner.StepRollingUpdate && len(s.Actions) > 0 {
				out = append(out, fmt.Sprintf("the set waits for its group's turn, and its rolling update acts: %v", kinds(s.Actions)))
			}
		}
	}
	if v := quorumBreach(in, taken); v != "" {
		out = append(out, v)
	}
	if v := domainViolation(in, plan, taken); v != "" {
		out = append(out, v)
	}
	if v := budgetViolation(in, taken); v != "" {
		out = append(out, v)
	}
	return append(out, refusalViolations(in, plan)...)
}

// takenOutOfService are the Available pods the rolling update, a
// requested delete or a move off a drained node takes out of service: deleted, their readiness gate
// set False, or their spec changed in place.
func takenOutOfService(in planner.Input, plan planner.Plan) map[string]*corev1.Pod {
	pods := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		pods[p.Name] = p
	}
	out := map[string]*corev1.Pod{}
	for _, s := range plan.Steps {
		if s.Name != planner.StepRollingUpdate && s.Name != planner.StepDeleteRequested && s.Name != planner.StepNodeDrain {
			continue
		}
		for _, a := range s.Actions {
			pod := pods[podName(a)]
			if pod == nil || !availableNow(in, pod) {
				continue
			}
			switch {
			case a.Kind == planner.DeletePod, a.Kind == planner.ResizePod,
				a.Kind == planner.PatchPodStatus && strings.Contains(string(a.Patch), `"False"`),
				a.Kind == planner.PatchPod && !strings.Contains(a.Reason, "(labels and annotations)"):
				out[pod.Name] = pod
			}
		}
	}
	return out
}

// availableNow is a pod Available at in.Now and in service: not
// terminating, and its readiness gate (if any) not False.
func availableNow(in planner.Input, pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil || !planner.IsAvailable(pod, in.Set.Spec.MinReadySeconds, in.Now) {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1alpha1.InPlaceReadinessGate && c.Status == corev1.ConditionFalse {
			return false
		}
	}
	return true
}

// inSet reports whether the pod's ordinal is one of the set's: within
// replicas of the start and neither reserved nor offline.
func inSet(in planner.Input, pod *corev1.Pod) bool {
	ord, ok := planner.ParseOrdinal(in.Set.Name, pod.Name)
	start := planner.StartOrdinal(in.Set)
	if !ok || ord < start || int64(ord) >= int64(start)+int64(planner.Replicas(in.Set)) {
		return false
	}
	e := in.Extended
	return !planner.Reserved(e.Reserved, ord) && !planner.Reserved(e.Offline, ord)
}

// quorumBreach checks that the quorum roles keep a majority of their
// members Available. The size counted here is at most the planner's (only
// observed pods), which allows at least as many disruptions.
func quorumBreach(in planner.Input, taken map[string]*corev1.Pod) string {
	e := in.Extended
	if e.Roles == nil {
		return ""
	}
	quorum := map[string]bool{}
	for _, r := range e.Roles.Roles {
		quorum[r.Name] = r.Quorum
	}
	size, available, disrupted := 0, 0, 0
	for _, pod := range in.Pods {
		role, labelled := pod.Labels["role"]
		if !inSet(in, pod) || (labelled && !quorum[role]) {
			continue
		}
		size++
		if labelled && availableNow(in, pod) {
			available++
			if taken[pod.Name] != nil {
				disrupted++
			}
		}
	}
	allowed := available - (size/2 + 1)
	if size > 0 && available == size {
		allowed = max(allowed, 1)
	}
	if disrupted > max(allowed, 0) {
		return fmt.Sprintf("quorum: %d of %d members Available, %d disrupted, at most %d may be", available, size, disrupted, max(allowed, 0))
	}
	return ""
}

// domainViolation checks that the rolling update takes Available pods of
// one domain at a time, at most maxUnavailablePerDomain of them.
func domainViolation(in planner.Input, plan planner.Plan, taken map[string]*corev1.Pod) string {
	t := in.Extended.Topology
	if t == nil || len(taken) == 0 {
		return ""
	}
	domainOf := func(pod *corev1.Pod) string { return in.Observed.Domains[pod.Spec.NodeName] }
	rolled := map[string]int{}
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			if pod := taken[podName(a)]; pod != nil && s.Name == planner.StepRollingUpdate {
				rolled[domainOf(pod)]++
			}
		}
	}
	if len(rolled) > 1 {
		return fmt.Sprintf("topology: the rolling update took pods in %d domains (%v), one at a time", len(rolled), rolled)
	}
	domains, down := map[string]int{}, map[string]int{}
	for _, pod := range taken {
		domains[domainOf(pod)]++
	}
	for _, pod := range in.Pods {
		if inSet(in, pod) && !availableNow(in, pod) {
			down[domainOf(pod)]++
		}
	}
	for d, n := range domains {
		if down[d]+n > t.MaxUnavailablePerDomain {
			return fmt.Sprintf("topology: %d pods taken in domain %q with %d down, at most %d unavailable in one domain", n, d, down[d], t.MaxUnavailablePerDomain)
		}
	}
	return ""
}

// budgetViolation checks that maxUnavailable bounds the pods taken out of
// service: at most maxUnavailable less the set's pods unavailable now.
func budgetViolation(in planner.Input, taken map[string]*corev1.Pod) string {
	ru := in.Set.Spec.UpdateStrategy.RollingUpdate
	maxUnavailable := 1
	if ru != nil && ru.MaxUnavailable != nil {
		n, err := planner.ScaleMaxUnavailable(ru.MaxUnavailable, planner.Replicas(in.Set))
		if err != nil {
			return ""
		}
		maxUnavailable = n
	}
	unavailable := 0
	for _, pod := range in.Pods {
		if inSet(in, pod) && !availableNow(in, pod) {
			unavailable++
		}
	}
	if len(taken) > max(maxUnavailable-unavailable, 0) {
		return fmt.Sprintf("maxUnavailable %d with %d unavailable, and %d pods taken out of service", maxUnavailable, unavailable, len(taken))
	}
	return ""
}

// refusalViolations checks that a pod whose eviction was refused, and is
// not due again, is not removed by choice (an update or a request).
func refusalViolations(in planner.Input, plan planner.Plan) []string {
	var out []string
	for _, s := range plan.Steps {
		if s.Name != planner.StepRollingUpdate && s.Name != planner.StepDeleteRequested && s.Name != planner.StepNodeDrain {
			continue
		}
		for _, a := range s.Actions {
			if a.Kind != planner.DeletePod || !in.Extended.Budgets.Respect {
				continue
			}
			if r, ok := in.Observed.Refused[a.Pod.Name]; ok && (r.UID == "" || r.UID == a.Pod.UID) && now.Before(r.RetryAt) {
				out = append(out, fmt.Sprintf("%s is removed although its eviction was refused until %s", a.Pod.Name, r.RetryAt.Format(time.RFC3339)))
			}
			if !a.Evict {
				out = append(out, fmt.Sprintf("%s is deleted, not evicted, under respectDisruptionBudgets", a.Pod.Name))
			}
		}
	}
	return out
}

func kinds(actions []planner.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, string(a.Kind)+" "+podName(a))
	}
	return out
}
