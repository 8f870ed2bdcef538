package planner

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// ManagedBudget is spec.disruptionBudget: the PodDisruptionBudget the set
// keeps of its own, so that evictions by anyone share one allowance sized
// from its quorum (v1alpha1.DisruptionBudget).
type ManagedBudget struct {
	// Name is the budget's name: the set's.
	Name string
	// MaxUnavailable is spec.disruptionBudget.maxUnavailable scaled to
	// replicas; 0 when unset (the quorum's allowance, 1 without a quorum).
	MaxUnavailable int
}

// Budgets are the PodDisruptionBudgets of the set's namespace that
// select its pods or its template's labels, or bear the name its own
// budget takes. A nil *Budgets in Observed means they were not read: the
// plan then keeps the DisruptionBudget condition as the last status had
// it and names no budget in a refusal.
type Budgets struct {
	All []BudgetFact
}

// BudgetFact is one PodDisruptionBudget as the controller observed it.
type BudgetFact struct {
	Name string
	// Owned is true when its controller reference names this set: the
	// budget spec.disruptionBudget keeps.
	Owned bool
	// Pods are the set's pods it selects, by name.
	Pods []string
	// Template says it selects the labels of the set's pod template, so
	// it would select the set's next pods too.
	Template bool
}

// BudgetPlan is the PodDisruptionBudget the set keeps, as this plan
// sizes it; the controller writes it (creates, updates) unless Foreign
// names a budget that keeps it from creating it.
type BudgetPlan struct {
	// Name is the budget's name, Counted the pods it counts (the set's
	// ordinals, or more while a scale-down runs) and MinAvailable its
	// spec.minAvailable: Counted less the disruptions it allows now.
	Name         string
	Counted      int
	MinAvailable int32
	// Allowance is what the quorum (or maxUnavailable) allows at most,
	// and Why says which; Hidden are the set's pods the budget counts
	// healthy but the set counts down, each with why, by which the
	// allowance shrinks.
	Allowance int
	Why       string
	Hidden    []string
	// Foreign are the other budgets that select the set's pods: the
	// controller does not create its own beside them. Exists says the
	// observed budgets include the set's own.
	Foreign []string
	Exists  bool
}

// Disruptions is how many disruptions the budget allows at most, once
// the pods already down are counted: the allowance less the hidden ones.
func (b *BudgetPlan) Disruptions() int { return max(0, b.Allowance-len(b.Hidden)) }

// budgetPlan sizes the set's own budget; nil without spec.disruptionBudget.
// The budget counts a pod healthy when it is Ready and not terminating,
// and every other pod (missing, not Ready, terminating) as down on its
// own. With minAvailable = Counted - (Allowance - hidden) the
// disruptions it grants are at most Allowance less every pod down for
// any cause, whether the budget sees it or the set alone does.
func (p *planner) budgetPlan() *BudgetPlan {
	mb := p.ext.DisruptionBudget
	if mb == nil {
		return nil
	}
	b := &BudgetPlan{Name: mb.Name, Hidden: p.hiddenDown(), Foreign: p.foreignBudgets(), Exists: p.ownBudgetExists()}
	b.Allowance, b.Why = p.budgetAllowance(mb)
	live := 0
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		if !s.placeholder && !isTerminating(s.pod) {
			live++
		}
	}
	b.Counted = max(int(p.layout.Len()), live)
	b.MinAvailable = int32(max(0, b.Counted-b.Disruptions()))
	return b
}

// budgetAllowance is what the quorum allows down at once (a majority
// stays; one at a time for a quorum of one or two, as the quorum's gate
// allows), or maxUnavailable when smaller; without a quorum,
// maxUnavailable or 1.
func (p *planner) budgetAllowance(mb *ManagedBudget) (int, string) {
	user := mb.MaxUnavailable
	v := p.rolesOf()
	if v == nil || !v.quorum || v.size <= 0 {
		if user > 0 {
			return user, fmt.Sprintf("spec.disruptionBudget.maxUnavailable %d", user)
		}
		return 1, "1, the default without a quorum role"
	}
	q := max(v.size-v.majority, 1)
	why := fmt.Sprintf("the quorum of %d members keeps a majority of %d", v.size, v.majority)
	if user > 0 && user < q {
		return user, fmt.Sprintf("spec.disruptionBudget.maxUnavailable %d (%s, which allows %d)", user, why, q)
	}
	if user > q {
		why += fmt.Sprintf("; spec.disruptionBudget.maxUnavailable %d is more than it allows", user)
	}
	return q, why
}

// hiddenDown lists the set's pods a budget counts healthy (Ready, not
// terminating) that the set counts down, each with why, and the pods
// not Ready yet that the set will still count down in the moment they
// turn Ready (no role yet, or minReadySeconds): the budget would count
// them healthy at once, before the set's next write could shrink it, so
// they are counted before. Such a pod counts twice while it is not
// Ready, as the budget sees it down too: a second disruption waits for
// it to be back.
func (p *planner) hiddenDown() []string {
	var out []string
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		if s.placeholder || isTerminating(s.pod) || isFinished(s.pod) {
			continue
		}
		why := p.comingBackWhy(s.pod)
		if readyCondition(s.pod) != nil {
			why = p.hiddenWhy(s.pod)
		}
		if why != "" {
			out = append(out, s.pod.Name+" ("+why+")")
		}
	}
	return out
}

// comingBackWhy says why a pod that is not Ready will still be down for
// the set once it turns Ready, "" when it will not.
func (p *planner) comingBackWhy(pod *corev1.Pod) string {
	if p.set.Spec.MinReadySeconds > 0 {
		return fmt.Sprintf("not Ready yet, then minReadySeconds %d", p.set.Spec.MinReadySeconds)
	}
	if v := p.rolesOf(); v != nil && v.quorum {
		if _, ok := v.roleOf(pod); !ok {
			return "not Ready yet, no role yet"
		}
	}
	return ""
}

// hiddenWhy says why a Ready pod counts as down for the set, "" when it
// does not.
func (p *planner) hiddenWhy(pod *corev1.Pod) string {
	switch {
	case !IsAvailable(pod, p.set.Spec.MinReadySeconds, p.in.Now):
		return fmt.Sprintf("Ready for less than minReadySeconds %d", p.set.Spec.MinReadySeconds)
	case p.inPlaceBusy(pod):
		return "out of service for an update in place"
	case p.nodeNotReady(pod.Spec.NodeName):
		return "its node " + pod.Spec.NodeName + " is not Ready"
	}
	v := p.rolesOf()
	if v == nil {
		return ""
	}
	r, ok := v.roleOf(pod)
	switch {
	case v.quorum && !ok:
		return "no role yet"
	case ok && r.Exclusive && p.handingOver(pod):
		return "handing its exclusive role " + r.Name + " over"
	}
	return ""
}

// handingOver reports whether the pod's switchover is under way (started,
// not Failed, not past its timeout): it still holds its exclusive role,
// and the set disrupts it once the role has moved. Meanwhile no eviction
// may take it, nor any other pod of the set, whose disruption the set's
// own then adds to. A switchover past its timeout is over either way:
// under Proceed the set evicts the pod through this same budget, which
// must then allow it; under Halt the pod stays in service.
func (p *planner) handingOver(pod *corev1.Pod) bool {
	h := p.ext.Switchover
	if h == nil {
		return false
	}
	state, ok := pod.Labels[h.Label]
	if !ok || state == v1alpha1.HookFailed {
		return false
	}
	rec := hookRecordOf(pod, h.Label)
	return rec.Since.IsZero() || p.in.Now.Before(rec.Since.Add(h.Timeout))
}

// nodeNotReady reports whether the observed nodes show node not Ready
// (or gone); false when nodes were not read.
func (p *planner) nodeNotReady(node string) bool {
	facts := p.in.Observed.Nodes
	if facts == nil || facts.Nodes == nil || node == "" {
		return false
	}
	n, ok := facts.Nodes[node]
	return !ok || n.Ready != corev1.ConditionTrue
}

// foreignBudgets are the observed budgets other than the set's own that
// select its pods or template, or bear its own budget's name.
func (p *planner) foreignBudgets() []string {
	b := p.in.Observed.Budgets
	if b == nil {
		return nil
	}
	var out []string
	for _, f := range b.All {
		if !f.Owned {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// budgetsOf are the observed budgets that select the pod, sorted.
func (p *planner) budgetsOf(pod string) []string {
	b := p.in.Observed.Budgets
	if b == nil {
		return nil
	}
	var out []string
	for _, f := range b.All {
		if slices.Contains(f.Pods, pod) {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// ownBudgetExists reports whether the observed budgets include the set's
// own.
func (p *planner) ownBudgetExists() bool {
	b := p.in.Observed.Budgets
	return b != nil && slices.ContainsFunc(b.All, func(f BudgetFact) bool { return f.Owned })
}

// doublySelected lists the set's pods two or more observed budgets
// select, each with them: every eviction of such a pod fails.
func (p *planner) doublySelected() []string {
	var out []string
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		if s.placeholder {
			continue
		}
		if names := p.budgetsOf(s.pod.Name); len(names) > 1 {
			out = append(out, fmt.Sprintf("%s (%s)", s.pod.Name, strings.Join(names, ", ")))
		}
	}
	return out
}
