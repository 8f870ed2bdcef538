package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// ReasonDisruptionBudget is the status.blockedBy reason of a pod whose
// eviction was refused.
const ReasonDisruptionBudget = v1alpha1.DisruptionBudgetReason

// disrupting returns act's actions for a pod the plan is about to remove
// by choice, once its hooks are done: evictions under Respect, or, while
// an earlier eviction of the pod is refused and not yet due again, no
// action but a wait and a status.blockedBy entry. The pod keeps the
// rolling budget it would have used, so a refusal never moves the update
// on to another pod (whose eviction the same budget would refuse). A pod
// above the set's ordinals that is not reserved is a plain scale-down: it
// is deleted as apps/v1 deletes it, and so is any pod of a set that does
// not respect budgets; need without needDelete (a change in place) is not
// a removal.
func (p *planner) disrupting(s slot, need hookNeed, act func() []Action) []Action {
	b := p.budgets()
	if !b.Respect || need&needDelete == 0 || (!p.inRange(s.ordinal) && !Reserved(p.reservations(), s.ordinal)) {
		return act()
	}
	if r, ok := p.in.Observed.Refused[s.pod.Name]; ok && (r.UID == "" || r.UID == s.pod.UID) && (r.RetryAt.IsZero() || p.in.Now.Before(r.RetryAt)) {
		p.refusedWait(s, r)
		return nil
	}
	actions := act()
	for i := range actions {
		if actions[i].Kind == DeletePod {
			actions[i].Evict = true
		}
	}
	return actions
}

func (p *planner) budgets() DisruptionBudgets {
	if p.ext == nil {
		return DisruptionBudgets{}
	}
	return p.ext.Budgets
}

// refusedWait explains a refused eviction in the plan's waits and lists
// the pod in status.blockedBy, and syncs the set again when the eviction
// is due.
func (p *planner) refusedWait(s slot, r EvictionRefusal) {
	retry := "the controller asks again after a backoff"
	if !r.RetryAt.IsZero() {
		left := r.RetryAt.Sub(p.in.Now)
		p.requeueBy(left)
		retry = fmt.Sprintf("the controller asks again in %s", left.Round(100*time.Millisecond))
	}
	msg := fmt.Sprintf("respectDisruptionBudgets: the eviction of %s was refused: %s", s.pod.Name, r.Message)
	reason, message, hint := ReasonDisruptionBudget, r.Message, fmt.Sprintf(
		"A PodDisruptionBudget matching %s allows no disruption now: kubectl -n %s get pdb. It allows one once enough of its pods are healthy; to remove pods without asking budgets, set spec.updateStrategy.rollingUpdate.respectDisruptionBudgets to false.",
		s.pod.Name, p.set.Namespace)
	if names := p.budgetsOf(s.pod.Name); len(names) > 1 {
		reason = ReasonMultipleBudgetsBlocked
		message = fmt.Sprintf("PodDisruptionBudgets %s all select %s: the API server refuses every eviction of a pod that more than one budget selects", strings.Join(names, ", "), s.pod.Name)
		hint = "Keep one PodDisruptionBudget per pod: " + p.multipleHint(p.ext.DisruptionBudget != nil) + "."
		msg += "; " + message
	}
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, msg+"; "+retry, hint))
	since := r.Since
	if since.IsZero() {
		since = p.in.Now
	}
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: s.pod.Name, Ordinal: s.ordinal, Revision: podRevision(s.pod),
		Reason: reason, Message: message, Since: since}})
}
