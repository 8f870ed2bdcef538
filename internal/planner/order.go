package planner

import "slices"

// A rolling update takes its candidates highest ordinal first; sorters
// reorder them. Each feature that orders the update is a sorter: it
// compares two candidates and says which goes first, or 0 to leave it to
// the next sorter; the sort is stable, so candidates every sorter finds
// equal keep their ordinal order.
type sorter func(a, b slot) int

// sorterOf builds a feature's sorter for one plan; nil when the feature
// is off for the set.
type sorterOf func(p *planner) sorter

// rollingSorters are the sorters of the rolling update, in the order they
// are asked (by rank). Each feature registers its own, from its own file.
var rollingSorters []ranked[sorterOf]

// Ranks of the sorters: a role's updateOrder, then priority weights
// among pods of one order.
const (
	rankRoles  = 10 * (iota + 1) // roles.go
	rankWeight                   // priority.go
)

// registerSorter registers a feature's sorter at rank.
func registerSorter(rank int, of sorterOf) { register(&rollingSorters, rank, of) }

// prioritized orders slots given highest ordinal first by the rolling
// update's sorters. It leaves a set without any (every apps/v1 set)
// exactly as it is, without sorting.
func (p *planner) prioritized(slots []slot) []slot {
	var chain []sorter
	for _, e := range rollingSorters {
		if s := e.of(p); s != nil {
			chain = append(chain, s)
		}
	}
	if len(chain) == 0 {
		return slots
	}
	slices.SortStableFunc(slots, func(a, b slot) int {
		for _, s := range chain {
			if c := s(a, b); c != 0 {
				return c
			}
		}
		return 0
	})
	return slots
}
