package planner

import (
	"cmp"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ReasonInvalidPriority warns about a rollingUpdate.priority rule whose
// selector cannot be read; the rolling update holds rather than replace
// pods in an order the user did not ask for.
const ReasonInvalidPriority = "InvalidPriority"

// weigher gives a pod's weight under a set's priority rules.
type weigher struct {
	weights   []int64
	selectors []labels.Selector
}

// compilePriority reads the set's priority rules once per plan. It
// reports false, with a warning, when a selector cannot be read; a set
// without rules gets a weigher that gives every pod weight 0.
func (p *planner) compilePriority() bool {
	if p.ext == nil {
		return true
	}
	for i, r := range p.ext.Priority {
		sel, err := metav1.LabelSelectorAsSelector(r.Selector)
		if err != nil {
			p.warn(ReasonInvalidPriority, "StatefulSet/"+p.set.Name, fmt.Sprintf(
				"updateStrategy.rollingUpdate.priority[%d].selector: %v; the rolling update does not proceed", i, err))
			return false
		}
		p.weigher.weights = append(p.weigher.weights, int64(r.Weight))
		p.weigher.selectors = append(p.weigher.selectors, sel)
	}
	return true
}

// weight is the sum of the weights of the rules matching the labels.
func (w weigher) weight(l map[string]string) int64 {
	var sum int64
	for i, sel := range w.selectors {
		if sel.Matches(labels.Set(l)) {
			sum += w.weights[i]
		}
	}
	return sum
}

func init() { registerSorter(rankWeight, weightSorter) }

// weightSorter puts pods of higher weight under the priority rules
// first; nil for a set without rules.
func weightSorter(p *planner) sorter {
	if len(p.weigher.selectors) == 0 {
		return nil
	}
	return func(a, b slot) int {
		return cmp.Compare(p.weigher.weight(b.pod.Labels), p.weigher.weight(a.pod.Labels))
	}
}

// updateOrder lists the old-revision pods at or above the partition that
// are not yet terminating, in the order the rolling update replaces them,
// marking those this plan deletes; nil for a set without rules or roles. A paused
// set gets the order it resumes with.
func (p *planner) updateOrder() []OrderedPod {
	if (len(p.weigher.selectors) == 0 && p.rolesOf() == nil) || p.onDelete() {
		return nil
	}
	var pending []slot
	for i := len(p.replicas) - 1; i >= 0; i-- {
		s := p.replicas[i]
		if p.updatable(s.ordinal) && !isTerminating(s.pod) && podRevision(s.pod) != p.update {
			pending = append(pending, s)
		}
	}
	var out []OrderedPod
	for _, s := range p.prioritized(pending) {
		out = append(out, OrderedPod{Pod: s.pod.Name, Ordinal: s.ordinal, Weight: p.weigher.weight(s.pod.Labels), Now: p.deleted[s.ordinal],
			Role: p.roleName(s.pod)})
	}
	return out
}
